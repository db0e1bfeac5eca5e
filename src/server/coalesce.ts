// Concurrent requests for the same write share it: while one write of a key runs, every request that
// arrives meanwhile joins a single follow-up write that starts when it ends (it must: the running write
// may have read the object before they came). A flood of pushes to one Release so makes at most two
// writes at a time instead of one per push racing the others into 409 conflicts.

interface Slot<T> {
  readonly running: Promise<T>;
  next: Promise<T> | undefined;
}

const ignore = (): void => undefined;

export class Coalescer<T> {
  readonly #slots = new Map<string, Slot<T>>();

  /** `write` runs now, or after the running write of `key`, shared with every caller until it starts. */
  run(key: string, write: () => Promise<T>): Promise<T> {
    const slot = this.#slots.get(key);
    if (slot === undefined) return this.#start(key, write);
    if (slot.next !== undefined) return slot.next;
    const next = slot.running.then(ignore, ignore).then(() => {
      this.#slots.delete(key);
      return this.#start(key, write);
    });
    slot.next = next;
    return next;
  }

  /** Keys with a write running (bounded by the keys written at once). */
  get size(): number {
    return this.#slots.size;
  }

  #start(key: string, write: () => Promise<T>): Promise<T> {
    const running = write();
    const slot: Slot<T> = { running, next: undefined };
    this.#slots.set(key, slot);
    const done = () => {
      if (slot.next === undefined && this.#slots.get(key) === slot) this.#slots.delete(key);
    };
    running.then(done, done);
    return running;
  }
}
