// Identical Prometheus queries of many Releases (same address, query and credentials) within one
// interval reach Prometheus once: a call in flight is joined, a finished one is reused until its time
// to live, counted from when it was sent, ends. Bounded: at most maxEntries results are kept, the oldest
// dropped first (docs/design.md#verification).
import { createHash } from 'node:crypto';

export interface SharedCallsOptions {
  readonly maxEntries?: number;
  /** Milliseconds clock (default Date.now). */
  readonly now?: () => number;
}

/** A key that holds no credential in clear: the SHA-256 of the parts. */
export function callKey(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

export class SharedCalls<T> {
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #done = new Map<string, { readonly value: T; readonly until: number }>();
  readonly #inFlight = new Map<string, Promise<T>>();

  constructor(options: SharedCallsOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** Results kept and calls in flight. */
  get size(): number {
    return this.#done.size + this.#inFlight.size;
  }

  /**
   * `call()`'s result, shared with every caller of the same key within `ttlMs` of when it was sent. From
   * the send, not the answer: a slow answer must not live on into the next interval of the caller that
   * sent it, or one answer would count as two of its measurements.
   */
  run(key: string, ttlMs: number, call: () => Promise<T>): Promise<T> {
    const now = this.#now();
    const kept = this.#done.get(key);
    if (kept !== undefined) {
      if (kept.until > now) return Promise.resolve(kept.value);
      this.#done.delete(key);
    }
    const running = this.#inFlight.get(key);
    if (running !== undefined) return running;
    const p = call().then(
      (value) => {
        this.#inFlight.delete(key);
        this.#keep(key, value, now + ttlMs);
        return value;
      },
      (err: unknown) => {
        this.#inFlight.delete(key);
        throw err;
      },
    );
    this.#inFlight.set(key, p);
    return p;
  }

  #keep(key: string, value: T, until: number): void {
    const now = this.#now();
    for (const [k, v] of this.#done) {
      if (this.#done.size < this.#maxEntries && v.until > now) break;
      this.#done.delete(k);
    }
    this.#done.set(key, { value, until });
  }
}
