// A token bucket per key (a Receiver) and one for all keys together, checked before any work: an
// unauthenticated caller can cost a Secret read and a signature check at most `ratePerSecond` times a
// second per Receiver. The keys held are bounded (the least recently used bucket goes first).

export interface RateLimitOptions {
  /** Requests a key may make at once. */
  readonly burst: number;
  /** Tokens a key gets back each second. */
  readonly ratePerSecond: number;
  /** The same for all keys together. */
  readonly globalBurst: number;
  readonly globalRatePerSecond: number;
  /** Keys kept (default 10,000). */
  readonly maxKeys?: number;
  readonly now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  readonly #o: RateLimitOptions;
  readonly #buckets = new Map<string, Bucket>();
  readonly #global: Bucket;
  readonly #now: () => number;

  constructor(opts: RateLimitOptions) {
    this.#o = opts;
    this.#now = opts.now ?? Date.now;
    this.#global = { tokens: opts.globalBurst, at: this.#now() };
  }

  /** Takes a token for `key`; false (and nothing taken) when the key or everyone is over the limit. */
  take(key: string): boolean {
    const now = this.#now();
    const b = this.#buckets.get(key) ?? { tokens: this.#o.burst, at: now };
    this.#buckets.delete(key);
    this.#buckets.set(key, b);
    if (this.#buckets.size > (this.#o.maxKeys ?? 10_000)) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest !== undefined) this.#buckets.delete(oldest);
    }
    refill(b, now, this.#o.burst, this.#o.ratePerSecond);
    refill(this.#global, now, this.#o.globalBurst, this.#o.globalRatePerSecond);
    if (b.tokens < 1 || this.#global.tokens < 1) return false;
    b.tokens--;
    this.#global.tokens--;
    return true;
  }
}

function refill(b: Bucket, now: number, burst: number, rate: number): void {
  b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * rate);
  b.at = now;
}
