// The per-reconcile deadline (as controller-runtime's ReconciliationTimeout): every reconcile gets an
// AbortSignal that aborts when its deadline passes, or earlier when a newer change to its object makes
// the work in flight pointless (the object is being deleted, a sync was asked for). The worker pool
// never works one key twice at once, so without this one stuck reconcile would hold its key — and the
// deletion or sync of that object — for as long as it is stuck. What the worker makes of the result
// is decided here, purely.
import { assertNever } from '../lib/assert-never.ts';
import type { ReconcileResult } from './workers.ts';

export type AbortCause = 'deadline' | 'superseded';

/** The reason a reconcile's signal carries. */
export class ReconcileAbortedError extends Error {
  override readonly name = 'ReconcileAbortedError';
  readonly abortCause: AbortCause;
  constructor(abortCause: AbortCause, message: string) {
    super(message);
    this.abortCause = abortCause;
  }
}

export function deadlineError(ms: number): ReconcileAbortedError {
  return new ReconcileAbortedError('deadline', `the reconcile passed its deadline of ${ms / 1000}s`);
}

export function supersededError(why: string): ReconcileAbortedError {
  return new ReconcileAbortedError('superseded', `superseded: ${why}`);
}

/** Whether a signal's reason is a reconcile superseded by a newer change (not a failure of its own). */
export function isSuperseded(reason: unknown): boolean {
  return reason instanceof ReconcileAbortedError && reason.abortCause === 'superseded';
}

/**
 * What the queue does with a key whose reconcile returned `result` after its signal aborted for `cause`
 * (undefined: it did not abort). Past the deadline the key is retried with error backoff whatever the
 * reconcile returned, so a reconcile that keeps running out of time backs off instead of spinning.
 * Superseded: the key was added again by the change that aborted it and runs right after; its backoff is
 * not counted against it.
 */
export function afterAbort(
  result: ReconcileResult,
  cause: AbortCause | undefined,
  reason: unknown,
): ReconcileResult {
  switch (cause) {
    case undefined:
      return result;
    case 'deadline':
      return result.kind === 'error' ? result : { kind: 'error', error: reason };
    case 'superseded':
      return { kind: 'done' };
    default:
      return assertNever(cause);
  }
}
