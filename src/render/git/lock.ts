// One holder at a time per key, so two reconciles never fetch into the same cached clone at once.
// In-process only: a cache directory belongs to one controller process.

export class KeyedLock {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs fn once every earlier holder of key is done; fn's failure does not block the next one. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      // The last holder leaves no entry behind, so the map holds only keys in use.
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** Keys with a holder or waiters (for tests and metrics). */
  get size(): number {
    return this.#tails.size;
  }
}
