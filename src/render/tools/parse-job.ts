// What a tool printed, parsed into manifests: the one pure step the parse child runs
// (parse-child.ts), and the same step inline for output too small to be worth a process. One
// function for both, so a render's manifests and problems do not depend on where it was parsed.
import { assertNever } from '../../lib/assert-never.ts';
import type { Problem } from '../errors.ts';
import { helmManifests } from '../helm/manifests.ts';
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
    };

export function runParseJob(job: ParseJob, text: string): RenderResult {
  switch (job.kind) {
    case 'helm':
      return helmManifests(text, job.postRendered, job.vars);
    case 'yaml':
      return outputManifests(text, job.file, job.vars);
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
