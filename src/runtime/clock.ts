// Time source behind an interface so the queue, backoff and leases can be driven by a fake
// clock in unit tests; production code uses realClock.

export type TimerHandle = { readonly id: number };

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

let nextRealId = 1;
const realTimers = new Map<number, NodeJS.Timeout>();

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const id = nextRealId++;
    const t = setTimeout(() => {
      realTimers.delete(id);
      fn();
    }, ms);
    realTimers.set(id, t);
    return { id };
  },
  clearTimeout(handle) {
    const t = realTimers.get(handle.id);
    if (t !== undefined) {
      clearTimeout(t);
      realTimers.delete(handle.id);
    }
  },
};

type FakeTimer = { id: number; at: number; seq: number; fn: () => void };

/** A manual clock: timers fire only inside advance(), in due-time order (ties in creation order). */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers = new Map<number, FakeTimer>();

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = ++this.#seq;
    this.#timers.set(id, { id, at: this.#now + Math.max(0, ms), seq: id, fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle.id);
  }

  pendingTimers(): number {
    return this.#timers.size;
  }

  /** Moves time forward by ms, firing every timer that falls due on the way (also ones set by timers). */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      let next: FakeTimer | undefined;
      for (const t of this.#timers.values()) {
        if (
          t.at <= target &&
          (next === undefined || t.at < next.at || (t.at === next.at && t.seq < next.seq))
        ) {
          next = t;
        }
      }
      if (next === undefined) break;
      this.#timers.delete(next.id);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
    }
    this.#now = target;
  }
}
