// The push deliveries a process has accepted, remembered for a window so a replayed push (the same
// delivery id, the same signed body) is answered "already delivered" instead of syncing again
// (docs/notifications.md#push-receivers). Bounded: entries older than the window go, and past `max` the
// oldest go first, so a flood of verified pushes costs at most `max` entries.

export interface DeliveriesOptions {
  /** How long an accepted delivery is remembered. */
  readonly windowMs: number;
  /** At most this many keys are kept. */
  readonly max: number;
  readonly now: () => number;
}

/** One hour of deliveries; at the receivers' global rate (50 a second) the oldest go after ~7 minutes. */
export const DEFAULT_DELIVERIES: Omit<DeliveriesOptions, 'now'> = { windowMs: 60 * 60_000, max: 20_000 };

export class Deliveries {
  readonly #o: DeliveriesOptions;
  /** key → when accepted; insertion order is age order. */
  readonly #seen = new Map<string, number>();

  constructor(o: DeliveriesOptions) {
    this.#o = o;
  }

  /**
   * Whether any of `keys` was accepted within the window; when none was, all of them are recorded now
   * (taken) and false is returned.
   */
  replayed(keys: readonly string[]): boolean {
    const now = this.#o.now();
    this.#expire(now);
    if (keys.some((k) => this.#seen.has(k))) return true;
    for (const k of keys) this.#seen.set(k, now);
    while (this.#seen.size > this.#o.max) {
      const oldest = this.#seen.keys().next();
      if (oldest.done === true) break;
      this.#seen.delete(oldest.value);
    }
    return false;
  }

  /** Forgets keys taken by a push that then failed, so the host's retry is not a replay. */
  release(keys: readonly string[]): void {
    for (const k of keys) this.#seen.delete(k);
  }

  get size(): number {
    return this.#seen.size;
  }

  #expire(now: number): void {
    for (const [k, at] of this.#seen) {
      if (now - at < this.#o.windowMs) break;
      this.#seen.delete(k);
    }
  }
}
