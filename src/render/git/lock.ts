// Two in-process guards of the git cache. KeyedLock: one holder at a time per key, so two reconciles never
// fetch into the same cached clone at once; a waiter gives up when its own signal aborts (its reconcile's
// deadline, a deletion), so a holder stuck on a silent server holds up no one past their own bound — and
// the holder itself is bounded by git's time limits. Shared: identical requests made while one is in
// flight join it instead of queueing behind it, so Releases on one URL get the same answer at the same
// time rather than one fetch timeout each, in turn — unless a caller needs a newer answer than the call
// in flight can give (a sync requested after it started).

import { untilAborted } from '../../lib/until-aborted.ts';
import { answers } from './freshness.ts';

export class KeyedLock {
  readonly #tails = new Map<string, Promise<void>>();

  /**
   * Runs fn once every earlier holder of key is done; fn's failure does not block the next one. When
   * signal aborts while waiting, rejects with its reason and leaves the queue as if it had never joined.
   */
  async run<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    const leave = () => {
      release();
      // The last holder leaves no entry behind, so the map holds only keys in use.
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    };
    try {
      await untilAborted(previous, signal);
    } catch (e) {
      // Released at once: whoever queued behind this waiter now waits only for `previous`.
      leave();
      throw e;
    }
    try {
      return await fn();
    } finally {
      leave();
    }
  }

  /** Keys with a holder or waiters (for tests and metrics). */
  get size(): number {
    return this.#tails.size;
  }
}

export class Shared<T> {
  readonly #inFlight = new Map<string, { readonly p: Promise<T>; readonly startedAt: number }>();
  readonly #now: () => number;

  /** `now`: the monotonic clock the `readAfter` of callers is read on. */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /**
   * The result of the call in flight for key, or of fn started now. Each caller stops waiting when its
   * own signal aborts; the call goes on for the others (it is bounded by its own limits). A caller with
   * `readAfter` joins only a call started at or after it (freshness.ts); otherwise fn starts anew and
   * later callers join the new call.
   */
  run(key: string, fn: () => Promise<T>, signal?: AbortSignal, readAfter?: number): Promise<T> {
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    let entry = this.#inFlight.get(key);
    if (entry === undefined || !answers(entry.startedAt, readAfter)) {
      const startedAt = this.#now();
      const p: Promise<T> = fn().finally(() => {
        if (this.#inFlight.get(key)?.p === p) this.#inFlight.delete(key);
      });
      entry = { p, startedAt };
      this.#inFlight.set(key, entry);
    }
    return untilAborted(entry.p, signal);
  }

  get size(): number {
    return this.#inFlight.size;
  }
}
