// The work queue: keys (namespace/name) with client-go workqueue semantics. A key is queued at
// most once (dirty set), never handed to two workers at once (processing set), and a key added
// while it is processed is handed out again after done(). Delayed adds keep only the earliest
// pending time per key; addRateLimited backs off per key until forget().
// Three lanes (docs/design.md#work-queue-priority): a change someone made (a new Release, an edit) is
// handed out before routine work (an interval pass, a resync, the first list after a start), so a new
// Release does not wait behind thousands of interval reconciles; and work that finishes what is under
// way (a health verdict a rollout waits for) before both, so a burst of new Releases does not hold back
// the cheap reconcile that records an earlier one healthy. A lower lane still gets one hand-out in every
// ROUTINE_SHARE (FINISH_SHARE), so a steady stream in a higher one cannot starve it.
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

/**
 * `finish`: what an object under way waits for to end (its health verdict); `change`: something changed
 * and someone waits for it; `routine`: a periodic or bulk re-check.
 */
export type Priority = 'finish' | 'change' | 'routine';

/** While changes are queued, one hand-out in this many goes to routine work. */
export const ROUTINE_SHARE = 8;
/** While finishing work is queued, one hand-out in this many goes to the change and routine lanes. */
export const FINISH_SHARE = 4;

type Waiting = { readyAt: number; timer: TimerHandle; priority: Priority };

const RANK: Readonly<Record<Priority, number>> = { finish: 2, change: 1, routine: 0 };
const higher = (a: Priority, b: Priority): Priority => (RANK[a] >= RANK[b] ? a : b);

export class WorkQueue {
  readonly #clock: Clock;
  readonly #random: Random;
  readonly #base: number;
  readonly #max: number;
  readonly #jitter: number;
  readonly #hooks: QueueHooks;
  /** Keys ready to hand out, per lane in FIFO order; together always the dirty keys not processing. */
  readonly #ready: Readonly<Record<Priority, Set<string>>> = {
    finish: new Set(),
    change: new Set(),
    routine: new Set(),
  };
  /** Queued keys and the lane each goes to (the higher of every add since it was last handed out). */
  readonly #dirty = new Map<string, Priority>();
  /** Change hand-outs since the last routine one, finish hand-outs since the last of another lane. */
  #changeStreak = 0;
  #finishStreak = 0;
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

  /** Queues key; one already queued in a lower lane moves up to this add's lane. */
  add(key: string, priority: Priority = 'change'): void {
    if (this.#shuttingDown) return;
    this.#hooks.onAdd?.(key);
    const queued = this.#dirty.get(key);
    if (queued !== undefined) {
      if (RANK[priority] > RANK[queued]) {
        this.#dirty.set(key, priority);
        if (this.#ready[queued].delete(key)) this.#ready[priority].add(key);
      }
      return;
    }
    this.#dirty.set(key, priority);
    if (this.#processing.has(key)) return;
    this.#ready[priority].add(key);
    this.#handOff();
    this.#hooks.onDepth?.(this.len());
  }

  /**
   * Adds key after ms (plus up to jitter*ms). A key already waiting keeps the earlier of both times and
   * the higher of both priorities.
   */
  addAfter(key: string, ms: number, jitter = 0, priority: Priority = 'change'): void {
    if (this.#shuttingDown) return;
    const delay = jittered(ms, jitter, this.#random);
    if (delay <= 0) {
      this.add(key, priority);
      return;
    }
    const readyAt = this.#clock.now() + delay;
    const prior = this.#waiting.get(key);
    if (prior !== undefined) {
      prior.priority = higher(prior.priority, priority);
      if (prior.readyAt <= readyAt) return;
      this.#clock.clearTimeout(prior.timer);
    }
    const lane = prior === undefined ? priority : prior.priority;
    const timer = this.#clock.setTimeout(() => {
      const w = this.#waiting.get(key);
      this.#waiting.delete(key);
      this.add(key, w?.priority ?? lane);
    }, delay);
    this.#waiting.set(key, { readyAt, timer, priority: lane });
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
    const lane = this.#nextLane();
    if (lane === undefined) return undefined;
    const key = this.#ready[lane].values().next().value as string;
    this.#ready[lane].delete(key);
    this.#dirty.delete(key);
    this.#processing.add(key);
    this.#hooks.onDepth?.(this.len());
    return key;
  }

  /**
   * The finish lane first, but the others every FINISH_SHARE-th hand-out while they wait; then the change
   * lane, but routine work every ROUTINE_SHARE-th hand-out while both wait.
   */
  #nextLane(): Priority | undefined {
    const finish = this.#ready.finish.size > 0;
    const others = this.#ready.change.size + this.#ready.routine.size > 0;
    if (finish && (!others || this.#finishStreak < FINISH_SHARE - 1)) {
      this.#finishStreak++;
      return 'finish';
    }
    this.#finishStreak = 0;
    const changes = this.#ready.change.size > 0;
    const routine = this.#ready.routine.size > 0;
    if (changes && (!routine || this.#changeStreak < ROUTINE_SHARE - 1)) {
      this.#changeStreak++;
      return 'change';
    }
    this.#changeStreak = 0;
    return routine ? 'routine' : undefined;
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
    const lane = this.#dirty.get(key);
    if (lane !== undefined) {
      this.#ready[lane].add(key);
      this.#handOff();
      this.#hooks.onDepth?.(this.len());
    }
    if (this.#processing.size === 0) {
      for (const d of this.#drainers.splice(0)) d();
    }
  }

  /** Keys ready to be handed out (the queue depth). */
  len(): number {
    return this.#ready.finish.size + this.#ready.change.size + this.#ready.routine.size;
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
    while (this.#getters.length > 0 && this.len() > 0) {
      const g = this.#getters.shift();
      const key = this.tryGet();
      g?.(key);
    }
  }
}
