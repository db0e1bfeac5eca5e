// The base of the observer's two loops that post a part of the Release status (health, drift): what both
// build alike — the ReleaseLoop with the status writer they share, the pass counters, the clock, the
// resolver of target clusters — and the end of a pass for a Release this process stops tracking. What a
// pass does, and in which order, stays in each loop's own syncHandler.
import type { Release } from '../api/types.ts';
import type { Controller, Harness, Logger, ReconcileResult } from '../runtime/index.ts';
import { type Target, TargetResolver } from './health/loop/target.ts';
import {
  type K,
  LoopCounters,
  type LoopStats,
  type ObserverLoopOptions,
  ReleaseLoop,
  type ReleaseLoopSpec,
} from './loop.ts';
import type { StatusPart } from './status-parts.ts';
import { ObserverStatusWriter } from './status-writer.ts';

/** What a loop says of itself to its base. */
export interface PartControllerSpec<S extends LoopStats>
  extends Pick<ReleaseLoopSpec, 'byClusterIndex' | 'releaseUpdateMatters' | 'inventoryUpdateMatters'> {
  /** Its part of the status, also its name in logs, metrics and the target watches. */
  readonly part: StatusPart;
  /** Its counts for tests and the bench, all 0; the counters keep them. */
  readonly stats: S;
  /** What a wake-up this loop sends is: the help text of convoy_<part>_sync_requests_total. */
  readonly syncsHelp: string;
}

/**
 * The health or the drift loop's controller, keyed by Release namespace/name, from the options both take:
 * their workers, resync and target watches, and the status writer they share.
 */
export abstract class PartController<
  O extends ObserverLoopOptions,
  S extends LoopStats,
  Result extends string,
  Written extends string,
> {
  readonly controller: Controller<K<Release>>;
  /** For tests and the bench (also exported as metrics). */
  readonly stats: S;
  protected readonly opts: O;
  protected readonly now: () => Date;
  protected readonly random: () => number;
  protected readonly loop: ReleaseLoop;
  /** Shared with the other loop (one of this loop's own when the options give none). */
  protected readonly statusWriter: ObserverStatusWriter;
  protected readonly counters: LoopCounters<Result, Written | 'status'>;
  readonly #targets: TargetResolver;

  constructor(harness: Harness, opts: O, spec: PartControllerSpec<S>) {
    const { part, stats, syncsHelp, ...filters } = spec;
    this.stats = stats;
    this.opts = opts;
    this.now = opts.now ?? (() => new Date());
    this.random = opts.random ?? Math.random;
    this.#targets = new TargetResolver(opts.client);
    this.statusWriter = opts.status ?? new ObserverStatusWriter(opts.client);
    this.loop = new ReleaseLoop(harness, {
      ...filters,
      name: part,
      workers: opts.workers,
      resyncMs: opts.resyncMs,
      watches: opts.watches,
      reconcile: (key, log) => this.syncHandler(key, log),
      status: { writer: this.statusWriter, part, wrote: () => this.counters.wrote('status') },
    });
    this.controller = this.loop.controller;
    this.counters = new LoopCounters(harness.metrics.registry, stats, part, syncsHelp);
  }

  /** One pass of the Release `key`. */
  abstract syncHandler(key: string, log: Logger): Promise<ReconcileResult>;

  /** The Release's target cluster, through the Cluster it names as cached. */
  protected target(release: Release): Promise<Target> {
    return this.#targets.resolve(release, this.loop.clusterOf(release));
  }

  /** Ends the pass of a Release this process stops tracking (gone, being deleted), forgetting all it kept. */
  protected forget(key: string, result: Result): ReconcileResult {
    this.forgetOwn(key);
    this.loop.forget(key);
    return this.counters.done(result);
  }

  /** Drops what the loop itself keeps of `key` beside the ReleaseLoop's memo. */
  protected abstract forgetOwn(key: string): void;
}
