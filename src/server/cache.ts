// A small TTL cache for TokenReview and SubjectAccessReview answers, so a burst of requests with one
// token costs one round trip to the apiserver. Bounded: the oldest entry goes first when full.

export class TtlCache<V> {
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, { readonly value: V; readonly expires: number }>();

  constructor(ttlMs: number, max = 4096, now: () => number = Date.now) {
    this.#ttlMs = ttlMs;
    this.#max = max;
    this.#now = now;
  }

  get(key: string): V | undefined {
    const e = this.#entries.get(key);
    if (e === undefined) return undefined;
    if (e.expires <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V): void {
    if (this.#ttlMs <= 0) return;
    this.#entries.delete(key);
    while (this.#entries.size >= this.#max) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expires: this.#now() + this.#ttlMs });
  }

  get size(): number {
    return this.#entries.size;
  }
}
