// One controller on the harness: a primary informer whose keys it reconciles, optional
// secondary informers mapped to primary keys, event filters in front of the queue, a worker
// pool behind it, and the shard gate checked when a key is worked (ownership can change
// between enqueue and work). Every reconcile runs under a deadline (deadline.ts): its signal aborts when
// the deadline passes, or when an update the spec names supersedes the work in flight.
import type { Logger } from 'pino';
import { keyOf } from './cache.ts';
import {
  type AbortCause,
  afterAbort,
  deadlineError,
  ReconcileAbortedError,
  supersededError,
} from './deadline.ts';
import type { ShardGate } from './elector.ts';
import type { KubeObject, UpdateFilter } from './filters.ts';
import type { Informer } from './informer.ts';
import { forKey } from './log.ts';
import type { HarnessMetrics } from './metrics.ts';
import { type Priority, type QueueOptions, WorkQueue } from './queue.ts';
import { type ReconcileResult, WorkerPool } from './workers.ts';

export type ReconcileContext = {
  readonly log: Logger;
  /** Aborts at the reconcile's deadline or when a newer change supersedes it; pass it to slow calls. */
  readonly signal: AbortSignal;
};

/** Default per-reconcile deadline. */
export const DEFAULT_RECONCILE_TIMEOUT_MS = 10 * 60_000;

export type ControllerSpec<T extends KubeObject> = {
  readonly name: string;
  readonly primary: Informer<T>;
  readonly reconcile: (key: string, ctx: ReconcileContext) => Promise<ReconcileResult>;
  readonly workers?: number;
  /** Which updates of the primary object enqueue its key (default: all). Resyncs always do. */
  readonly updateFilter?: UpdateFilter<T>;
  /** The shard of a key; undefined: not sharded (every replica works it). */
  readonly shardOfKey?: (key: string) => number | undefined;
  readonly queue?: Omit<QueueOptions, 'hooks'>;
  /** Deadline of one reconcile in ms (default DEFAULT_RECONCILE_TIMEOUT_MS). */
  readonly reconcileTimeoutMs?: number;
  /**
   * Updates of the primary that abort the key's reconcile in flight (the key is then worked again at once):
   * a change that makes the running work pointless, e.g. deletion started. Deletes always abort it.
   */
  readonly supersedes?: UpdateFilter<T>;
};

/** A secondary watch: changes to its objects enqueue the primary keys they map to. */
export type SecondaryWatch<S extends KubeObject> = {
  readonly informer: Informer<S>;
  /** Which updates count (default: all). Resyncs of secondaries are ignored: the primary's resync covers them. */
  readonly updateFilter?: UpdateFilter<S>;
  readonly keys: (obj: S) => readonly string[];
  /** The lane an update that passes the filter queues its keys in (default change; queue.ts). */
  readonly updatePriority?: (o: S, n: S) => Priority;
};

export class Controller<T extends KubeObject = KubeObject> {
  readonly name: string;
  readonly queue: WorkQueue;
  readonly #spec: ControllerSpec<T>;
  readonly #pool: WorkerPool;
  readonly #log: Logger;
  readonly #gate: ShardGate | undefined;
  readonly #metrics: HarnessMetrics;
  /** The abort controller of each key being reconciled. */
  readonly #inFlight = new Map<string, AbortController>();

  constructor(spec: ControllerSpec<T>, log: Logger, metrics: HarnessMetrics, gate: ShardGate | undefined) {
    this.name = spec.name;
    this.#spec = spec;
    this.#log = log;
    this.#gate = gate;
    this.#metrics = metrics;
    const l = { controller: spec.name };
    // Export every series from the start, so dashboards and alerts see zeros, not gaps.
    metrics.adds.inc(l, 0);
    metrics.retries.inc(l, 0);
    metrics.errors.inc(l, 0);
    metrics.depth.set(l, 0);
    metrics.reconcileTimeouts.inc(l, 0);
    metrics.reconcileSuperseded.inc(l, 0);
    this.queue = new WorkQueue({
      ...spec.queue,
      hooks: {
        onAdd: () => metrics.adds.inc(l),
        onRetry: () => metrics.retries.inc(l),
        onDepth: (d) => metrics.depth.set(l, d),
      },
    });
    this.#pool = new WorkerPool(this.queue, (key) => this.#work(key), spec.workers ?? 2, {
      onResult: (key, result, seconds) => {
        metrics.workDuration.observe({ ...l, result: result.kind }, seconds);
        if (result.kind === 'error') {
          metrics.errors.inc(l);
          forKey(log, spec.name, key).error(
            { err: String(result.error), requeues: this.queue.numRequeues(key) + 1 },
            'reconcile failed',
          );
        }
      },
    });
    // The first list after a start and the periodic resync are routine; a change seen since is not
    // (queue.ts: a new Release does not wait behind a relist of ten thousand).
    spec.primary.addHandlers({
      add: (o, initialList) => this.queue.add(keyOf(o), initialList ? 'routine' : 'change'),
      update: (o, n) => {
        if (o !== n && spec.supersedes?.(o, n) === true) this.#supersede(keyOf(n), 'the object changed');
        if (o === n) this.queue.add(keyOf(n), 'routine');
        else if (spec.updateFilter?.(o, n) ?? true) this.queue.add(keyOf(n));
      },
      delete: (o) => {
        this.#supersede(keyOf(o), 'the object was deleted');
        this.queue.add(keyOf(o));
      },
    });
  }

  /** Aborts the key's reconcile in flight, if any. */
  #supersede(key: string, why: string): void {
    const ac = this.#inFlight.get(key);
    if (ac === undefined || ac.signal.aborted) return;
    this.#metrics.reconcileSuperseded.inc({ controller: this.name });
    ac.abort(supersededError(why));
  }

  /** Keys whose reconcile is running now (for tests). */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  watch<S extends KubeObject>(w: SecondaryWatch<S>): this {
    const enqueue = (o: S, priority: Priority = 'change') => {
      for (const k of w.keys(o)) this.queue.add(k, priority);
    };
    w.informer.addHandlers({
      add: (o) => enqueue(o),
      update: (o, n) => {
        if (o === n) return;
        if (w.updateFilter?.(o, n) ?? true) {
          const priority = w.updatePriority?.(o, n);
          enqueue(n, priority);
          // A change can move an object between primaries (e.g. a re-pointed reference).
          enqueue(o, priority);
        }
      },
      delete: (o) => enqueue(o),
    });
    return this;
  }

  /** Enqueues every cached primary key of a shard this replica just gained. */
  shardGained(shard: number): void {
    const f = this.#spec.shardOfKey;
    if (f === undefined) return;
    for (const key of this.#spec.primary.cache.keys()) if (f(key) === shard) this.queue.add(key, 'routine');
  }

  start(): void {
    this.#pool.start();
  }

  /** Stops taking keys and waits for in-flight reconciles to finish. */
  async drain(): Promise<void> {
    await this.queue.shutDownWithDrain();
    await this.#pool.stopped();
  }

  async #work(key: string): Promise<ReconcileResult> {
    const shard = this.#spec.shardOfKey?.(key);
    if (shard !== undefined && this.#gate !== undefined && !this.#gate.owns(shard)) {
      // Not ours now; the owner enqueues it when it gains the shard.
      return { kind: 'done' };
    }
    const ms = this.#spec.reconcileTimeoutMs ?? DEFAULT_RECONCILE_TIMEOUT_MS;
    const ac = new AbortController();
    const timer = setTimeout(() => {
      this.#metrics.reconcileTimeouts.inc({ controller: this.name });
      ac.abort(deadlineError(ms));
    }, ms);
    this.#inFlight.set(key, ac);
    let result: ReconcileResult;
    try {
      result = await this.#spec.reconcile(key, { log: forKey(this.#log, this.name, key), signal: ac.signal });
    } catch (error) {
      result = { kind: 'error', error };
    } finally {
      clearTimeout(timer);
      this.#inFlight.delete(key);
    }
    const reason: unknown = ac.signal.reason;
    const cause: AbortCause | undefined =
      ac.signal.aborted && reason instanceof ReconcileAbortedError ? reason.abortCause : undefined;
    return afterAbort(result, cause, reason);
  }
}
