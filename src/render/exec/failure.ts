// How a bounded run failed, as data, and the one sentence each failure reads as. Pure.
import { assertNever } from '../../lib/assert-never.ts';

export type ExecFailure =
  /** The program is not on PATH. */
  | { readonly kind: 'notFound' }
  | { readonly kind: 'spawn'; readonly message: string }
  /** The total time limit passed; the process group was killed. */
  | { readonly kind: 'timeout'; readonly timeoutMs: number }
  /** No output for idleMs; the process group was killed. */
  | { readonly kind: 'idle'; readonly idleMs: number }
  /** The caller's signal aborted the run (a reconcile deadline, a deletion, a shutdown). */
  | { readonly kind: 'aborted'; readonly reason: string }
  /** stdout passed its cap; the process group was killed. */
  | { readonly kind: 'output'; readonly maxBytes: number }
  /** The command ended by itself with a non-zero status or a signal. */
  | { readonly kind: 'exit'; readonly code: number | null; readonly signal: string | null };

/** Whether the failure is a time limit (total or idle): callers report those as timeouts. */
export function isTimeout(f: ExecFailure): f is Extract<ExecFailure, { kind: 'timeout' | 'idle' }> {
  return f.kind === 'timeout' || f.kind === 'idle';
}

/** Seconds as people write them: 120, 2.5, 0.2. */
export function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

export function describeExecFailure(command: string, f: ExecFailure): string {
  switch (f.kind) {
    case 'notFound':
      return `the ${command} command is not installed`;
    case 'spawn':
      return `${command} could not be started: ${f.message}`;
    case 'timeout':
      return `timed out after ${seconds(f.timeoutMs)}s`;
    case 'idle':
      return `no progress for ${seconds(f.idleMs)}s`;
    case 'aborted':
      return f.reason === 'aborted' ? 'aborted' : `aborted: ${f.reason}`;
    case 'output':
      return `output exceeds ${f.maxBytes} bytes`;
    case 'exit':
      return `exit status ${f.code ?? f.signal}`;
    default:
      return assertNever(f);
  }
}
