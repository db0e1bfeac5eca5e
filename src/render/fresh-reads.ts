// One remote check shared by every Release that reads the same thing (an OCI tag, a chart version range in
// one repository), as fresh as each caller needs (docs/design.md#requested-syncs): an interval poll takes the
// answer of a read of the same key that started within its poll window, a requested sync one that started
// after the request — the rules git's refs follow (git/freshness.ts). A read in flight that would answer is
// joined. The shared read runs without any caller's signal (the source's own timeouts bound it), so one
// caller giving up never fails the others; each caller still stops waiting at its own abort. Failures are
// not kept. Bounded: the oldest answers are dropped past maxEntries.

import { untilAborted } from '../lib/until-aborted.ts';
import { answers, planRefRead } from './git/freshness.ts';
import type { FetchOptions } from './source.ts';

export interface FreshReadsOptions {
  readonly maxEntries?: number;
  /** Monotonic milliseconds, the clock FetchOptions.readAfter is read on (default performance.now). */
  readonly now?: () => number;
}

interface Read<T> {
  readonly startedAt: number;
  readonly value: Promise<T>;
}

export class FreshReads<T> {
  readonly #maxEntries: number;
  readonly #now: () => number;
  /** Answers of finished reads by key, oldest first (a Map in insertion order). */
  readonly #done = new Map<string, { readonly startedAt: number; readonly value: T }>();
  readonly #inFlight = new Map<string, Read<T>>();

  constructor(options: FreshReadsOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 1_000;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Answers kept and reads in flight. */
  get size(): number {
    return this.#done.size + this.#inFlight.size;
  }

  /** `read()`'s answer, or one fresh enough for `fresh` that another caller's read already has or will have. */
  async read(
    key: string,
    fresh: FetchOptions | undefined,
    read: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const now = this.#now();
    const readAfter = fresh?.readAfter;
    const window = fresh?.pollWindowMs ?? 0;
    const last = this.#done.get(key);
    if (last !== undefined && planRefRead(readAfter, last.startedAt, now, window).kind === 'cached') {
      return last.value;
    }
    const running = this.#inFlight.get(key);
    const joins =
      running !== undefined &&
      (readAfter === undefined
        ? window > 0 && now - running.startedAt < window
        : answers(running.startedAt, readAfter));
    return untilAborted(joins ? running.value : this.#start(key, now, read), signal);
  }

  #start(key: string, startedAt: number, read: () => Promise<T>): Promise<T> {
    const value = read();
    const entry: Read<T> = { startedAt, value };
    this.#inFlight.set(key, entry);
    value.then(
      (v) => {
        if (this.#inFlight.get(key) === entry) this.#inFlight.delete(key);
        const kept = this.#done.get(key);
        if (kept !== undefined && kept.startedAt > startedAt) return;
        this.#done.delete(key);
        this.#done.set(key, { startedAt, value: v });
        for (const k of this.#done.keys()) {
          if (this.#done.size <= this.#maxEntries) break;
          this.#done.delete(k);
        }
      },
      () => {
        if (this.#inFlight.get(key) === entry) this.#inFlight.delete(key);
      },
    );
    return value;
  }
}
