// Git revisions as Argo CD and Flux spell them, as a convoy source.git.ref. Pure.
import type { ReleaseSpec } from '../api/types.ts';
import { asRecord, str } from './types.ts';

export type GitRef = NonNullable<NonNullable<ReleaseSpec['source']['git']>['ref']>;

export type RefMapping =
  | { readonly kind: 'ok'; readonly ref: GitRef | undefined; readonly note?: string }
  | { readonly kind: 'unsupported'; readonly note: string };

const SHA = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/;
const VERSION = /^v?\d+(\.\d+){1,2}([-+][0-9A-Za-z.-]+)?$/;

/**
 * Argo CD's targetRevision: a branch, a tag, a commit or HEAD in one string. A full SHA is a commit, a
 * version-looking name a tag (said in a note, as it is a guess), HEAD or nothing the default branch,
 * anything else a branch.
 */
export function argoRevision(targetRevision: unknown): RefMapping {
  const r = str(targetRevision);
  if (r === undefined || r === 'HEAD') return { kind: 'ok', ref: undefined };
  if (SHA.test(r)) return { kind: 'ok', ref: { commit: r } };
  if (/[*^~<>=| ]/.test(r))
    return {
      kind: 'unsupported',
      note: `targetRevision ${JSON.stringify(r)} is a version range; convoy's git source follows a branch, tag or commit — pick one`,
    };
  if (VERSION.test(r))
    return {
      kind: 'ok',
      ref: { tag: r },
      note: `targetRevision ${JSON.stringify(r)} was taken as a tag; use source.git.ref.branch if it is a branch`,
    };
  return { kind: 'ok', ref: { branch: r.replace(/^refs\/heads\//, '') } };
}

/** Flux's GitRepository spec.ref: commit beats tag beats branch (as Flux decides); semver and name are not carried. */
export function fluxGitRef(ref: unknown): RefMapping {
  const r = asRecord(ref);
  const commit = str(r.commit);
  if (commit !== undefined) return { kind: 'ok', ref: { commit } };
  if (str(r.semver) !== undefined)
    return {
      kind: 'unsupported',
      note: `ref.semver ${JSON.stringify(r.semver)}: convoy's git source follows a branch, tag or commit — pick one`,
    };
  if (str(r.name) !== undefined)
    return {
      kind: 'unsupported',
      note: `ref.name ${JSON.stringify(r.name)}: convoy's git source follows a branch, tag or commit — pick one`,
    };
  const tag = str(r.tag);
  if (tag !== undefined) return { kind: 'ok', ref: { tag } };
  const branch = str(r.branch);
  return { kind: 'ok', ref: branch === undefined ? undefined : { branch } };
}
