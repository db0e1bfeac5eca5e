// shortRevision: the short form of a source revision shown in `kubectl get releases` (status.revision)
// and by the CLI, so both print the same thing. A git commit is cut to 12 hex digits (unique in any
// repository of human size, like Flux's short SHA); a digest keeps its algorithm and 12 digits; an
// inline revision is already short; a chart's version@digest keeps its version.

const HEX_COMMIT = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const DIGEST = /^([a-z0-9]+):([0-9a-f]{32,})$/;
/** A chart's revision: "<version>@sha256:<digest of the archive>". */
const VERSIONED_DIGEST = /^([^@\s]{1,64})@([a-z0-9]+):([0-9a-f]{32,})$/;

export const SHORT_DIGITS = 12;

export function shortRevision(revision: string): string {
  if (HEX_COMMIT.test(revision)) return revision.slice(0, SHORT_DIGITS);
  const digest = DIGEST.exec(revision);
  if (digest !== null) return `${digest[1]}:${(digest[2] ?? '').slice(0, SHORT_DIGITS)}`;
  const chart = VERSIONED_DIGEST.exec(revision);
  if (chart !== null) return `${chart[1]}@${chart[2]}:${(chart[3] ?? '').slice(0, SHORT_DIGITS)}`;
  return revision.length > 64 ? `${revision.slice(0, 63)}…` : revision;
}
