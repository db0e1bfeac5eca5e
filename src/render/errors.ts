// The two failing steps of a render, each an error type carrying its condition reason:
// fetching the source (SourceFailed, or SourceTimeout when a time limit ended it) and turning its files
// into a render (RenderFailed).
import type { Origin } from './types.ts';

/** The source could not be fetched or resolved. The message never holds a credential. */
export class SourceError extends Error {
  override readonly name: string = 'SourceError';
  readonly reason: 'SourceFailed' | 'SourceTimeout' = 'SourceFailed';
}

/** The source did not answer within a time limit (its process group was killed): retried with backoff. */
export class SourceTimeoutError extends SourceError {
  override readonly name = 'SourceTimeoutError';
  override readonly reason = 'SourceTimeout';
  /** The source's URL, without credentials. */
  readonly url: string;
  readonly seconds: number;
  constructor(message: string, url: string, seconds: number) {
    super(message);
    this.url = url;
    this.seconds = seconds;
  }
}

/** One thing wrong with the input, located as precisely as the step that found it can. */
export type Problem = {
  /** "apps/web.yaml document 2, line 7 column 3", or an object with its origin. */
  readonly where: string;
  readonly message: string;
};

/** Problems shown in a message; the rest are counted, so a condition stays readable. */
const MAX_SHOWN = 10;

/** The files could not be rendered; nothing of this render may be applied. */
export class RenderError extends Error {
  override readonly name = 'RenderError';
  readonly reason = 'RenderFailed';
  readonly problems: readonly Problem[];
  constructor(problems: readonly Problem[]) {
    super(formatProblems(problems));
    this.problems = problems;
  }
}

export function formatProblems(problems: readonly Problem[]): string {
  const shown = problems
    .slice(0, MAX_SHOWN)
    .map((p) => (p.where === '' ? p.message : `${p.where}: ${p.message}`));
  const more = problems.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; and ${more} more` : shown.join('; ');
}

/** "apps/web.yaml document 2" or "apps/list.yaml document 1 item 3". */
export function formatOrigin(o: Origin): string {
  const base = `${o.file} document ${o.document}`;
  return o.item === undefined ? base : `${base} item ${o.item}`;
}
