// The bounded worker pool: N workers pull keys from the queue and reconcile them. The result
// decides what happens to the key: error -> per-key backoff, requeueAfter -> plain delayed
// re-add (no backoff), done -> forget its failures. Each worker yields to the event loop between two
// reconciles (docs/design.md#processes).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { assertNever } from '../lib/assert-never.ts';
import type { Priority, WorkQueue } from './queue.ts';

export type ReconcileResult =
  | { readonly kind: 'done' }
  /** priority: the lane the key takes when it comes back (default `change`; an interval pass is `routine`). */
  | { readonly kind: 'requeueAfter'; readonly ms: number; readonly priority?: Priority }
  | { readonly kind: 'error'; readonly error: unknown };

export type Reconcile = (key: string) => Promise<ReconcileResult>;

export type WorkerHooks = {
  readonly onResult?: (key: string, result: ReconcileResult, seconds: number) => void;
};

/** What the queue should do with a key after its reconcile. */
export function settle(queue: WorkQueue, key: string, result: ReconcileResult): void {
  switch (result.kind) {
    case 'done':
      queue.forget(key);
      return;
    case 'requeueAfter':
      queue.forget(key);
      queue.addAfter(key, result.ms, 0, result.priority);
      return;
    case 'error':
      queue.addRateLimited(key);
      return;
    default:
      assertNever(result);
  }
}

export class WorkerPool {
  readonly #queue: WorkQueue;
  readonly #reconcile: Reconcile;
  readonly #size: number;
  readonly #hooks: WorkerHooks;
  #running: Promise<void>[] = [];

  constructor(queue: WorkQueue, reconcile: Reconcile, size: number, hooks: WorkerHooks = {}) {
    if (size < 1) throw new Error(`worker pool size must be >= 1, got ${size}`);
    this.#queue = queue;
    this.#reconcile = reconcile;
    this.#size = size;
    this.#hooks = hooks;
  }

  start(): void {
    if (this.#running.length > 0) return;
    for (let i = 0; i < this.#size; i++) this.#running.push(this.#loop());
  }

  /** Resolves when every worker has exited (after the queue is shut down and in-flight work ends). */
  async stopped(): Promise<void> {
    await Promise.all(this.#running);
  }

  async #loop(): Promise<void> {
    for (;;) {
      if (this.#queue.shuttingDown) return;
      const key = await this.#queue.get();
      if (key === undefined) return;
      const started = performance.now();
      let result: ReconcileResult;
      try {
        result = await this.#reconcile(key);
      } catch (error) {
        // A throwing reconcile is a bug or an unexpected failure: treat it like a returned error.
        result = { kind: 'error', error };
      }
      try {
        this.#hooks.onResult?.(key, result, (performance.now() - started) / 1000);
      } finally {
        if (!this.#queue.shuttingDown) settle(this.#queue, key, result);
        this.#queue.done(key);
      }
      // A reconcile that finds nothing to do reads only caches and awaits no I/O, and the queue hands
      // out a ready key as a resolved promise: without this turn, a pass over 10,000 such keys after a
      // restart ran as one chain of microtasks and held the event loop for its whole length — Lease
      // renewals lapsed, /metrics and /healthz went unanswered.
      await nextTurn();
    }
  }
}
