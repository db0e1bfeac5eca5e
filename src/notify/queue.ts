// The delivery queue: notifications handed over without waiting, sent by a bounded number of concurrent
// sends, retried with capped exponential backoff (plus jitter) while the provider cannot take them, and
// dropped after a retry window. Items of one lane (an Alert and a Release) go strictly in order, so a
// commit status never ends on "pending" because its "success" overtook it; other lanes do not wait for a
// slow one. The queue is bounded: a push that finds it full is refused (the caller counts it and leaves
// the fact unrecorded, so a later pass plans it again). Knows nothing of HTTP or Kubernetes.
import { exponentialBackoff, jittered } from '../runtime/jitter.ts';

export type Outcome =
  | { readonly kind: 'delivered' }
  /** Done without a send: the provider has nothing to do for this item. */
  | { readonly kind: 'skipped'; readonly why: string }
  | { readonly kind: 'retry'; readonly why: string }
  | { readonly kind: 'refused'; readonly why: string };

/** How an item ended. */
export type Final = 'delivered' | 'skipped' | 'refused' | 'expired' | 'stopped';

export interface QueueItem<T> {
  readonly lane: string;
  readonly value: T;
}

export interface DeliveryQueueOptions<T> {
  readonly send: (value: T, attempt: number) => Promise<Outcome>;
  /** Called once per item when it leaves the queue, with its last failure for expired/refused. */
  readonly onFinal: (value: T, final: Final, why: string | undefined, attempts: number) => void;
  /** Called after each failed attempt that will be retried. */
  readonly onRetry?: (value: T, why: string, attempt: number) => void;
  readonly onDepth?: (depth: number) => void;
  /** Items held at most (default 10,000). */
  readonly maxItems?: number;
  /** Sends in flight at most (default 16). */
  readonly concurrency?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** An item still failing this long after its first attempt is dropped (default 15 min). */
  readonly retryWindowMs?: number;
  readonly now?: () => number;
}

interface Entry<T> {
  readonly value: T;
  attempts: number;
  firstAttemptAt: number | undefined;
}

export class DeliveryQueue<T> {
  readonly #o: Required<Omit<DeliveryQueueOptions<T>, 'onRetry' | 'onDepth'>> &
    Pick<DeliveryQueueOptions<T>, 'onRetry' | 'onDepth'>;
  readonly #lanes = new Map<string, Entry<T>[]>();
  /** Lanes whose head may be sent now, oldest first. */
  readonly #ready: string[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();
  #size = 0;
  readonly #sending = new Set<Entry<T>>();
  #stopped = false;
  #idle: Array<() => void> = [];

  constructor(opts: DeliveryQueueOptions<T>) {
    this.#o = {
      maxItems: 10_000,
      concurrency: 16,
      baseDelayMs: 1000,
      maxDelayMs: 60_000,
      retryWindowMs: 15 * 60_000,
      now: Date.now,
      ...opts,
    };
  }

  /** Items waiting or in flight. */
  get size(): number {
    return this.#size;
  }

  /** Queues `value` behind the lane's earlier items; false when the queue is full or stopped. */
  push(lane: string, value: T): boolean {
    if (this.#stopped || this.#size >= this.#o.maxItems) return false;
    const entry: Entry<T> = { value, attempts: 0, firstAttemptAt: undefined };
    const items = this.#lanes.get(lane);
    if (items === undefined) {
      this.#lanes.set(lane, [entry]);
      this.#ready.push(lane);
    } else items.push(entry);
    this.#size++;
    this.#o.onDepth?.(this.#size);
    this.#pump();
    return true;
  }

  /** Resolves when nothing is queued or in flight (or after timeoutMs). */
  async idle(timeoutMs = 60_000): Promise<void> {
    if (this.#size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((r) => this.#idle.push(r)),
      new Promise<void>((r) => {
        timer = setTimeout(r, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /**
   * Stops sending: waiting items end as 'stopped' (a restart plans them again from the ledger). A send in
   * flight ends with its own outcome when it returns — a delivery made must be recorded, or the replica
   * that takes over sends it again; idle() resolves once none is left.
   */
  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    for (const items of this.#lanes.values()) {
      // An item in flight ends when its send returns.
      for (const e of items) if (!this.#sending.has(e)) this.#finish(e, 'stopped', undefined);
    }
    this.#lanes.clear();
    this.#ready.length = 0;
    this.#settle();
  }

  #pump(): void {
    while (!this.#stopped && this.#sending.size < this.#o.concurrency) {
      const lane = this.#ready.shift();
      if (lane === undefined) return;
      const head = this.#lanes.get(lane)?.[0];
      if (head === undefined) continue;
      this.#sending.add(head);
      void this.#attempt(lane, head);
    }
  }

  async #attempt(lane: string, e: Entry<T>): Promise<void> {
    e.attempts++;
    e.firstAttemptAt ??= this.#o.now();
    let out: Outcome;
    try {
      out = await this.#o.send(e.value, e.attempts);
    } catch (err) {
      out = { kind: 'retry', why: `send failed: ${(err as Error)?.message ?? String(err)}` };
    }
    this.#sending.delete(e);
    if (this.#stopped) {
      if (out.kind === 'retry') this.#finish(e, 'stopped', undefined);
      else this.#finish(e, out.kind, out.kind === 'delivered' ? undefined : out.why);
      this.#settle();
      return;
    }
    switch (out.kind) {
      case 'delivered':
        this.#next(lane, e, 'delivered', undefined);
        break;
      case 'skipped':
        this.#next(lane, e, 'skipped', out.why);
        break;
      case 'refused':
        this.#next(lane, e, 'refused', out.why);
        break;
      case 'retry': {
        const elapsed = this.#o.now() - (e.firstAttemptAt ?? 0);
        if (elapsed >= this.#o.retryWindowMs) {
          this.#next(lane, e, 'expired', out.why);
          break;
        }
        this.#o.onRetry?.(e.value, out.why, e.attempts);
        const delay = Math.min(
          this.#o.maxDelayMs,
          jittered(exponentialBackoff(e.attempts, this.#o.baseDelayMs, this.#o.maxDelayMs), 0.2),
        );
        const t = setTimeout(() => {
          this.#timers.delete(t);
          this.#ready.push(lane);
          this.#pump();
        }, delay);
        t.unref();
        this.#timers.add(t);
        break;
      }
    }
    this.#pump();
    this.#settle();
  }

  /** The lane's head ended: drop it and make the lane ready for its next item. */
  #next(lane: string, e: Entry<T>, final: Final, why: string | undefined): void {
    const items = this.#lanes.get(lane);
    items?.shift();
    this.#finish(e, final, why);
    if (items === undefined || items.length === 0) this.#lanes.delete(lane);
    else this.#ready.push(lane);
  }

  #finish(e: Entry<T>, final: Final, why: string | undefined): void {
    this.#size--;
    this.#o.onDepth?.(this.#size);
    this.#o.onFinal(e.value, final, why, e.attempts);
  }

  #settle(): void {
    if (this.#size > 0) return;
    const waiters = this.#idle;
    this.#idle = [];
    for (const w of waiters) w();
  }
}
