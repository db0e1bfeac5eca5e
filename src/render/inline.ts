// The inline source: the manifests are in the Release itself, so the revision is their hash.
import { createHash } from 'node:crypto';
import type { Source } from './source.ts';
import type { InlineSourceSpec, SourceOutput } from './types.ts';

/** The file name inline manifests get in render error messages. */
export const INLINE_FILE = 'inline.yaml';

/** "inline:" + the first 12 hex digits of sha256(manifests). */
export function inlineRevision(manifests: string): string {
  return `inline:${createHash('sha256').update(manifests).digest('hex').slice(0, 12)}`;
}

export const InlineSource: Source<InlineSourceSpec> = {
  fetch(spec: InlineSourceSpec): Promise<SourceOutput> {
    return Promise.resolve({
      revision: inlineRevision(spec.manifests),
      files: [{ path: INLINE_FILE, data: new TextEncoder().encode(spec.manifests) }],
    });
  },
};
