// What a tool printed, parsed into manifests: the one pure step the parse child runs
// (parse-child.ts), and the same step inline for output too small to be worth a process. One
// function for both, so a render's manifests and problems do not depend on where it was parsed.
import { assertNever } from '../../lib/assert-never.ts';
import type { Problem } from '../errors.ts';
import { helmManifests } from '../helm/manifests.ts';
import type { ManifestFormat } from '../parse.ts';
import { plainManifests } from '../plain-parse.ts';
import type { RenderResult } from '../renderer.ts';
import type { Manifest } from '../types.ts';
import { outputManifests } from './output.ts';

/** How to read the output: helm's (split by `# Source:`, hooks mapped) or one YAML stream. */
export type ParseJob =
  | {
      readonly kind: 'helm';
      readonly postRendered: boolean;
      readonly vars: Readonly<Record<string, string>> | undefined;
    }
  | {
      readonly kind: 'yaml';
      /** The origin every object gets ("kustomize build"). */
      readonly file: string;
      readonly vars: Readonly<Record<string, string>> | undefined;
    }
  | {
      /** Plain's files, one after another in the input; each ends after its `bytes`. */
      readonly kind: 'plain';
      readonly files: readonly {
        readonly path: string;
        readonly format: ManifestFormat;
        readonly bytes: number;
      }[];
      readonly vars: Readonly<Record<string, string>> | undefined;
    };

export function runParseJob(job: ParseJob, input: Buffer): RenderResult {
  switch (job.kind) {
    case 'helm':
      return helmManifests(input.toString('utf8'), job.postRendered, job.vars);
    case 'yaml':
      return outputManifests(input.toString('utf8'), job.file, job.vars);
    case 'plain': {
      let at = 0;
      const files = job.files.map(({ path, format, bytes }) => {
        const data = input.subarray(at, at + bytes);
        at += bytes;
        return { path, format, data };
      });
      return plainManifests(files, job.vars);
    }
    default:
      return assertNever(job);
  }
}

/**
 * Parent to parse child: the job (the output goes to its stdin), then one `more` per batch received. A batch is
 * sent only when asked for, so deserialising one is one short task of the parent's event loop, never
 * the whole render at once.
 */
export type ParseAsk =
  | {
      readonly type: 'parse';
      readonly job: ParseJob;
      /** About how many bytes of manifests (as JSON) one batch carries. */
      readonly batchBytes: number;
    }
  | { readonly type: 'more' };

/** Parse child to parent. */
export type ParseReply =
  | { readonly type: 'batch'; readonly manifests: readonly Manifest[] }
  | { readonly type: 'done' }
  | { readonly type: 'failed'; readonly problems: readonly Problem[] };
