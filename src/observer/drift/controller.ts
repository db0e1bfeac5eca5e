// The DriftController: the observer's drift loop on the shared harness, next to the health loop. Queue key:
// namespace/name of the Release; the shard gate as the health loop's (the Cluster's shard, else the
// namespace's). A pass: the Release from the cache → nothing while it is being deleted → check every
// entry with a renderRef against its render → write the entries' drift fields and the Drifted condition
// (each skipped when unchanged) → with selfHeal, ask the controller for a sync when drift appeared →
// requeue at the drift interval. Heal bookkeeping and the memo of this process's writes live in memory.
// Informers, shard gate, reads through own writes and the pass counters are ../loop.ts and
// ../part-controller.ts, shared with health.
import { Counter } from 'prom-client';
import { parseOptionalDuration } from '../../api/duration.ts';
import { formatTime } from '../../api/time.ts';
import type { Release } from '../../api/types.ts';
import { isConflict, isNotFound } from '../../kube/errors.ts';
import type { MergedInventory } from '../../kube/inventory-parts.ts';
import { assertNever } from '../../lib/assert-never.ts';
import { errorMessage } from '../../lib/errors.ts';
import { nameOf, namespaceOf } from '../../lib/names.ts';
import type { Render } from '../../render/types.ts';
import type { Harness, Logger, ReconcileResult } from '../../runtime/index.ts';
import { releaseLabelValue } from '../../store/layout.ts';
import { SecretRenderStore } from '../../store/secrets.ts';
import type { RenderStore } from '../../store/types.ts';
import { requestSync } from '../health/loop/sync-request.ts';
import type { LoopStats, ObserverLoopOptions } from '../loop.ts';
import { PartController } from '../part-controller.ts';
import { recordInFlight } from '../status-condition.ts';
import { checkDrift } from './check.ts';
import { inventoryUpdateMatters, releaseUpdateMatters } from './filters.ts';
import type { DriftInterval } from './options.ts';
import {
  type CheckOutcome,
  type DriftedCondition,
  decideHeal,
  driftedCondition,
  driftStatusBody,
  driftStatusDue,
  driftStatusUpToDate,
  type HealState,
  inventoryDriftItems,
  newlyDrifted,
  nextDelayMs,
} from './plan.ts';
import { RenderCache } from './render-cache.ts';
import { writeInventoryDrift } from './writes.ts';

export interface DriftControllerOptions extends ObserverLoopOptions {
  /** --drift-interval: the same for every Release; undefined: each Release's syncPolicy.interval, else 5m. */
  readonly intervalMs?: number;
  /** Default: the Secret render store of `client`. */
  readonly store?: RenderStore;
}

type PassResult = 'inSync' | 'drifted' | 'unknown' | 'failed' | 'deleting' | 'conflict' | 'gone';

/** The drift loop's counts: the shared ones, and its reads of live objects (GETs and LISTs) and its LISTs. */
interface DriftStats extends LoopStats {
  reads: number;
  lists: number;
}

export class DriftController extends PartController<
  DriftControllerOptions,
  DriftStats,
  PassResult,
  'inventory'
> {
  readonly #store: RenderStore;
  readonly #renders = new RenderCache();
  readonly #heal = new Map<string, HealState>();
  /** Passes in a row that awaited a heal or failed, per key: they come back sooner. */
  readonly #urgent = new Map<string, number>();
  readonly #reads: Counter<'verb'>;

  constructor(harness: Harness, opts: DriftControllerOptions) {
    super(harness, opts, {
      part: 'drift',
      stats: { passes: 0, writes: 0, syncRequests: 0, reads: 0, lists: 0 },
      // Its own index name: the Release informer is shared with the health loop, which has 'cluster'.
      byClusterIndex: 'drift-cluster',
      releaseUpdateMatters,
      inventoryUpdateMatters,
      syncsHelp: 'selfHeal wake-ups (sync requests) sent to the controller',
    });
    this.#store = opts.store ?? new SecretRenderStore(opts.client);
    this.#reads = new Counter({
      name: 'convoy_drift_object_reads_total',
      help: 'Requests for live objects, by verb: a LIST per kind and namespace with many entries, else a GET per object',
      labelNames: ['verb'],
      registers: [harness.metrics.registry],
    });
    this.counters.startAtZero(['inventory', 'status']);
    for (const verb of ['get', 'list']) this.#reads.inc({ verb }, 0);
  }

  /** One pass (docs/design.md#drift): its steps in order, each one call. */
  async syncHandler(key: string, log: Logger): Promise<ReconcileResult> {
    // The Release from the cache; gone: return.
    const release = this.loop.release(key);
    if (release === undefined) return this.forget(key, 'gone');
    // Shard gate (docs/design.md#sharding): the harness checked shardOfKey before this handler ran.
    // Deletion: the objects are being pruned; nothing to compare and nothing to heal.
    if (release.metadata.deletionTimestamp !== undefined) return this.forget(key, 'deleting');
    // Check every entry with a renderRef against its render (docs/design.md#drift).
    const inventory = this.loop.inventory(key);
    const outcome = await this.#check(key, release, inventory, log);
    // Write the entries' drift fields, skipped when unchanged.
    const drift = await this.#writeEntries(inventory, outcome);
    if (drift === 'conflict') return this.counters.conflict(log);
    // Write the Drifted condition and driftSummary (docs/design.md#observer-status), skipped when unchanged.
    const cond = driftedCondition(outcome, release.status?.driftSummary);
    if ((await this.#writeStatus(key, release, inventory, cond)) === 'gone') return this.forget(key, 'gone');
    // selfHeal: ask the controller for a sync when drift appeared.
    const heal = await this.#selfHeal(key, release, drift, log);
    if (heal.kind === 'ended') return heal.result;
    // Next pass at the drift interval, sooner while a heal is awaited or the check failed.
    return this.#nextPass(key, release, outcome, cond, heal.requested);
  }

  /** Reads the live objects and compares each entry with its render (./check.ts), counting the reads. */
  async #check(
    key: string,
    release: Release,
    inventory: MergedInventory | undefined,
    log: Logger,
  ): Promise<CheckOutcome> {
    const ns = namespaceOf(release);
    const name = nameOf(release);
    const check = await checkDrift(
      inventory?.inventory.entries ?? [],
      {
        resolveTarget: () => this.target(release),
        render: (ref) => this.#render(ns, name, ref),
        releaseLabel: releaseLabelValue(ns, name),
        ...(this.opts.listThreshold !== undefined ? { listThreshold: this.opts.listThreshold } : {}),
        ...(this.opts.watches ? { read: this.opts.watches.readerOf('drift', key) } : {}),
      },
      inventory?.inventory.pending ?? [],
    );
    this.stats.reads += check.reads;
    this.stats.lists += check.lists;
    this.#reads.inc({ verb: 'get' }, check.gets);
    this.#reads.inc({ verb: 'list' }, check.lists);
    if (check.outcome.kind === 'failed') log.warn({ err: check.outcome.message }, 'drift check failed');
    return check.outcome;
  }

  /** writeInventoryDrift of a checked inventory; how many entries drifted, and how many newly. */
  async #writeEntries(
    inventory: MergedInventory | undefined,
    outcome: CheckOutcome,
  ): Promise<DriftCounts | 'conflict'> {
    if (outcome.kind !== 'checked' || inventory === undefined) return { drifted: 0, newlyDrifted: 0 };
    const entries = inventory.inventory.entries ?? [];
    const items = inventoryDriftItems(entries, outcome.entries);
    try {
      const written = await writeInventoryDrift(this.opts.client, inventory, items, (replaced, stored) =>
        this.loop.wroteInventoryObject(replaced, stored),
      );
      if (written.length > 0) this.counters.wrote('inventory');
    } catch (err) {
      if (isConflict(err)) return 'conflict';
      throw err;
    }
    return {
      drifted: items.filter((i) => i.drifted).length,
      newlyDrifted: newlyDrifted(entries, items).length,
    };
  }

  /** Posts the Drifted condition when it is due and changed; 'gone' when the Release no longer exists. */
  async #writeStatus(
    key: string,
    release: Release,
    inventory: MergedInventory | undefined,
    cond: DriftedCondition,
  ): Promise<'gone' | undefined> {
    const body = driftStatusBody(cond, release.status, release.metadata.generation, formatTime(this.now()));
    try {
      const due = driftStatusDue(release.status, recordInFlight(inventory?.inventory));
      if (due && !driftStatusUpToDate(release.status, body))
        await this.statusWriter.post(key, release, 'drift', body);
    } catch (err) {
      if (isNotFound(err)) return 'gone';
      throw err;
    }
    return undefined;
  }

  /** decideHeal, and the sync request it asks for: a failed request is kept and returned as the error. */
  async #selfHeal(key: string, release: Release, drift: DriftCounts, log: Logger): Promise<HealStep> {
    const heal = decideHeal({
      selfHeal: release.spec.syncPolicy?.selfHeal === true,
      drifted: drift.drifted,
      newlyDrifted: drift.newlyDrifted,
      attemptAt: release.status?.lastAttempted?.time,
      prior: this.#heal.get(key),
    });
    switch (heal.kind) {
      case 'none':
        this.#heal.delete(key);
        return { kind: 'continue', requested: false };
      case 'wait':
        this.#heal.set(key, heal.state);
        return { kind: 'continue', requested: false };
      case 'request':
        try {
          const sent = await requestSync(
            this.opts.client,
            this.opts.sync ?? { kind: 'aggregated' },
            release,
            this.now(),
          );
          if (sent === 'gone') return { kind: 'ended', result: this.forget(key, 'gone') };
        } catch (err) {
          this.#heal.set(key, { ...heal.state, unsent: true });
          log.warn({ err: errorMessage(err) }, 'selfHeal sync request failed; kept');
          return { kind: 'ended', result: { kind: 'error', error: err } };
        }
        this.#heal.set(key, heal.state);
        this.counters.synced();
        log.info(
          { drifted: drift.drifted, request: heal.state.requests },
          'drift: sync requested (selfHeal)',
        );
        return { kind: 'continue', requested: true };
      default:
        return assertNever(heal);
    }
  }

  /** Counts the pass and requeues at the drift interval (nextDelayMs), sooner while urgent. */
  #nextPass(
    key: string,
    release: Release,
    outcome: CheckOutcome,
    cond: DriftedCondition,
    healRequested: boolean,
  ): ReconcileResult {
    const urgent = healRequested || outcome.kind === 'failed';
    const attempts = urgent ? (this.#urgent.get(key) ?? 0) + 1 : 0;
    if (attempts === 0) this.#urgent.delete(key);
    else this.#urgent.set(key, attempts);
    const interval = parseOptionalDuration(release.spec.syncPolicy?.interval);
    this.counters.pass(
      outcome.kind === 'failed'
        ? 'failed'
        : cond.reason === 'Drifted'
          ? 'drifted'
          : cond.reason === 'InSync'
            ? 'inSync'
            : 'unknown',
    );
    return {
      kind: 'requeueAfter',
      ms: nextDelayMs({
        flagMs: this.opts.intervalMs,
        intervalMs: interval !== undefined && interval > 0 ? interval : undefined,
        urgentAttempts: attempts,
        random: this.random,
      }),
      // The periodic check is routine work (src/runtime/queue.ts); a retry after a failure or a heal is not.
      priority: attempts === 0 ? 'routine' : 'change',
    };
  }

  async #render(ns: string, name: string, ref: string): Promise<Render | undefined> {
    const cached = this.#renders.get(ref);
    if (cached !== undefined) return cached;
    const r = await this.#store.get(ns, name, ref);
    if (r === undefined) return undefined;
    this.#renders.set(ref, r);
    return r;
  }

  protected forgetOwn(key: string): void {
    this.#heal.delete(key);
    this.#urgent.delete(key);
  }
}

/** How many entries drifted in this pass, and how many of them newly (the selfHeal edge). */
interface DriftCounts {
  readonly drifted: number;
  readonly newlyDrifted: number;
}

/** selfHeal's end: the pass ended (request failed, Release gone), or it goes on. */
type HealStep =
  | { readonly kind: 'ended'; readonly result: ReconcileResult }
  | { readonly kind: 'continue'; readonly requested: boolean };

/** Registers the drift loop unless --drift-interval=0 turned it off. */
export function registerDriftController(
  harness: Harness,
  interval: DriftInterval,
  opts: Omit<DriftControllerOptions, 'intervalMs'>,
): DriftController | undefined {
  switch (interval.kind) {
    case 'off':
      return undefined;
    case 'perRelease':
      return new DriftController(harness, opts);
    case 'fixed':
      return new DriftController(harness, { ...opts, intervalMs: interval.ms });
  }
}
