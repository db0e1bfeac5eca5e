// The work queue: keys (namespace/name) with client-go workqueue semantics. A key is queued at
// most once (dirty set), never handed to two workers at once (processing set), and a key added
// while it is processed is handed out again after done(). Delayed adds keep only the earliest
// pending time per key; addRateLimited backs off per key until forget().
import { type Clock, realClock, type TimerHandle } from './clock.ts';
import { exponentialBackoff, jittered, type Random } from './jitter.ts';

export type QueueOptions = {
  readonly clock?: Clock;
  readonly random?: Random;
  /** First error backoff; doubles per consecutive failure of a key. */
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Jitter fraction added to error backoff delays (0 = exact). */
  readonly backoffJitter?: number;
  readonly hooks?: QueueHooks;
};

/** Callbacks for metrics; the queue itself knows nothing about Prometheus. */
export type QueueHooks = {
  readonly onAdd?: (key: string) => void;
  readonly onRetry?: (key: string) => void;
  readonly onDepth?: (depth: number) => void;
};

type Waiting = { readyAt: number; timer: TimerHandle };

export class WorkQueue {
  readonly #clock: Clock;
  readonly #random: Random;
  readonly #base: number;
  readonly #max: number;
  readonly #jitter: number;
  readonly #hooks: QueueHooks;
  /** Keys ready to hand out, in FIFO order; always a subset of dirty. */
  readonly #ready = new Set<string>();
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #waiting = new Map<string, Waiting>();
  readonly #failures = new Map<string, number>();
  #getters: Array<(key: string | undefined) => void> = [];
  #drainers: Array<() => void> = [];
  #shuttingDown = false;

  constructor(opts: QueueOptions = {}) {
    this.#clock = opts.clock ?? realClock;
    this.#random = opts.random ?? Math.random;
    this.#base = opts.baseDelayMs ?? 5;
    this.#max = opts.maxDelayMs ?? 1000_000;
    this.#jitter = opts.backoffJitter ?? 0;
    this.#hooks = opts.hooks ?? {};
  }

  add(key: string): void {
    if (this.#shuttingDown) return;
    this.#hooks.onAdd?.(key);
    if (this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (this.#processing.has(key)) return;
    this.#ready.add(key);
    this.#handOff();
    this.#hooks.onDepth?.(this.#ready.size);
  }

  /** Adds key after ms (plus up to jitter*ms). A key already waiting keeps the earlier of both times. */
  addAfter(key: string, ms: number, jitter = 0): void {
    if (this.#shuttingDown) return;
    const delay = jittered(ms, jitter, this.#random);
    if (delay <= 0) {
      this.add(key);
      return;
    }
    const readyAt = this.#clock.now() + delay;
    const prior = this.#waiting.get(key);
    if (prior !== undefined) {
      if (prior.readyAt <= readyAt) return;
      this.#clock.clearTimeout(prior.timer);
    }
    const timer = this.#clock.setTimeout(() => {
      this.#waiting.delete(key);
      this.add(key);
    }, delay);
    this.#waiting.set(key, { readyAt, timer });
  }

  /** Re-adds key after its error backoff and counts one more failure. */
  addRateLimited(key: string): void {
    const n = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, n);
    this.#hooks.onRetry?.(key);
    this.addAfter(key, exponentialBackoff(n, this.#base, this.#max), this.#jitter);
  }

  /** Clears the failure count of key, so its next error starts from the base delay again. */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /** The next key without waiting, or undefined when none is ready. The caller must call done(key). */
  tryGet(): string | undefined {
    const first = this.#ready.values().next();
    if (first.done) return undefined;
    const key = first.value;
    this.#ready.delete(key);
    this.#dirty.delete(key);
    this.#processing.add(key);
    this.#hooks.onDepth?.(this.#ready.size);
    return key;
  }

  /** Waits for the next key; undefined once the queue is shut down. */
  get(): Promise<string | undefined> {
    const key = this.tryGet();
    if (key !== undefined) return Promise.resolve(key);
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  done(key: string): void {
    if (!this.#processing.delete(key)) return;
    if (this.#dirty.has(key)) {
      this.#ready.add(key);
      this.#handOff();
      this.#hooks.onDepth?.(this.#ready.size);
    }
    if (this.#processing.size === 0) {
      for (const d of this.#drainers.splice(0)) d();
    }
  }

  /** Keys ready to be handed out (the queue depth). */
  len(): number {
    return this.#ready.size;
  }

  isProcessing(key: string): boolean {
    return this.#processing.has(key);
  }

  /** Added and not yet handed out, or handed out again once its current pass is done (not a delayed add). */
  isQueued(key: string): boolean {
    return this.#dirty.has(key);
  }

  processingCount(): number {
    return this.#processing.size;
  }

  waitingCount(): number {
    return this.#waiting.size;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Stops accepting keys, drops delayed adds, wakes idle getters with undefined. */
  shutDown(): void {
    this.#shuttingDown = true;
    for (const w of this.#waiting.values()) this.#clock.clearTimeout(w.timer);
    this.#waiting.clear();
    for (const g of this.#getters.splice(0)) g(undefined);
  }

  /** shutDown, then resolves once no key is being processed. */
  async shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.#processing.size === 0) return;
    await new Promise<void>((resolve) => this.#drainers.push(resolve));
  }

  #handOff(): void {
    while (this.#getters.length > 0 && this.#ready.size > 0) {
      const g = this.#getters.shift();
      const key = this.tryGet();
      g?.(key);
    }
  }
}
