// The HealthController (seed "Health loop"): the observer's second controller on the shared harness.
// Queue key: namespace/name of the Release. syncHandler runs the seed's steps in order — Release from
// the cache, shard gate (the harness checks it before the handler runs), deletion, hooks, health, wake
// the controller on an edge, scheduleHealthRecheck. Attempt counts and unsent edges live in memory.

import { Counter } from 'prom-client';
import { GROUP, VERSION } from '../../../api/constants.ts';
import { parseOptionalDuration } from '../../../api/duration.ts';
import type {
  Cluster,
  GlobalHealthRuleSet,
  HealthRuleSet,
  Release,
  ReleaseInventory,
} from '../../../api/types.ts';
import type { KubeClient } from '../../../kube/client.ts';
import { isConflict, isNotFound } from '../../../kube/errors.ts';
import {
  type Controller,
  type Harness,
  type KubeObject,
  keyOf,
  type Logger,
  OwnWrites,
  type ReconcileResult,
  shardOf,
} from '../../../runtime/index.ts';
import { shouldPoll } from '../../hooks/decide.ts';
import { type PollResult, pollHooks } from '../../hooks/poll.ts';
import { planRecheck } from '../backoff.ts';
import { type AssessOutcome, type HealthyCondition, healthyCondition } from '../condition.ts';
import { frontierWaveCompleted } from '../edges.ts';
import { formatTime } from '../state.ts';
import { type Assessment, assess } from './assess.ts';
import { clusterUpdateMatters, inventoryUpdateMatters, releaseUpdateMatters } from './filters.ts';
import { healthStatusBody, pendingTargets } from './plan.ts';
import { collectRules } from './rules.ts';
import { requestSync, type SyncVia } from './sync-request.ts';
import { TargetResolver } from './target.ts';
import { writeHealth } from './writes.ts';

export interface HealthControllerOptions {
  /** Client of the cluster the observer runs in (Releases, inventories, rule sets). */
  readonly client: KubeClient;
  readonly workers?: number;
  /** Informer resync: every Release gets a pass at this interval (0: never). */
  readonly resyncMs?: number;
  readonly now?: () => Date;
  readonly random?: () => number;
  readonly listThreshold?: number;
  /** Where wake-ups go (default: POST /sync through kube-apiserver's aggregation layer). */
  readonly sync?: SyncVia;
}

const base = `/apis/${GROUP}/${VERSION}`;
/** convoy's typed objects as the harness caches them (its KubeObject has an index signature). */
type K<T> = T & KubeObject;
const BY_CLUSTER = 'cluster';
const BY_NAMESPACE = 'namespace';
/** Retry after a 409 from an apply whose cached resourceVersion was stale (the informer catches up). */
const CONFLICT_RETRY_MS = 500;
/**
 * Cap of the per-key error backoff (the queue's default is 1000 s). A failed wake-up is retried through
 * this backoff, and an edge kept through a long API outage must still go out soon after the API is back.
 */
const ERROR_BACKOFF_MAX_MS = 30_000;

type PassResult = 'assessed' | 'notConfigured' | 'failed' | 'deleting' | 'conflict' | 'gone';

export class HealthController {
  readonly controller: Controller<K<Release>>;
  /** Passes by result, for tests and the bench (also exported as metrics). */
  readonly stats = { passes: 0, writes: 0, syncRequests: 0, reads: 0 };
  /** Completed passes per Release key. */
  readonly #passesByKey = new Map<string, number>();
  readonly #h: Harness;
  readonly #o: HealthControllerOptions;
  readonly #now: () => Date;
  readonly #random: () => number;
  readonly #targets: TargetResolver;
  readonly #releases;
  readonly #inventories;
  readonly #clusters;
  readonly #ruleSets;
  readonly #globalRuleSets;
  readonly #counts = new Map<string, ReadonlyMap<string, number>>();
  readonly #pendingSync = new Set<string>();
  readonly #writtenInventory = new OwnWrites<ReleaseInventory>();
  readonly #writtenRelease = new OwnWrites<Release>();
  readonly #m;

  constructor(harness: Harness, opts: HealthControllerOptions) {
    this.#h = harness;
    this.#o = opts;
    this.#now = opts.now ?? (() => new Date());
    this.#random = opts.random ?? Math.random;
    this.#targets = new TargetResolver(opts.client);
    const resyncMs = opts.resyncMs ?? 0;
    this.#releases = harness.informer<K<Release>>({ path: `${base}/releases`, resyncMs });
    this.#inventories = harness.informer<K<ReleaseInventory>>({ path: `${base}/releaseinventories` });
    this.#clusters = harness.informer<K<Cluster>>({ path: `${base}/clusters` });
    this.#ruleSets = harness.informer<K<HealthRuleSet>>({ path: `${base}/healthrulesets` });
    this.#globalRuleSets = harness.informer<K<GlobalHealthRuleSet>>({ path: `${base}/globalhealthrulesets` });
    const releases = this.#releases;
    releases.addIndex(BY_CLUSTER, (r) =>
      r.spec?.cluster?.name ? [`${r.metadata.namespace}/${r.spec.cluster.name}`] : [],
    );
    releases.addIndex(BY_NAMESPACE, (r) => (r.metadata.namespace ? [r.metadata.namespace] : []));
    const registers = [harness.metrics.registry];
    this.#m = {
      passes: new Counter({
        name: 'convoy_health_passes_total',
        help: 'Health passes, by result',
        labelNames: ['result'],
        registers,
      }),
      writes: new Counter({
        name: 'convoy_health_writes_total',
        help: 'Writes of the health loop, by object',
        labelNames: ['object'],
        registers,
      }),
      syncs: new Counter({
        name: 'convoy_health_sync_requests_total',
        help: 'Wake-ups (sync requests) sent to the controller',
        registers,
      }),
      syncFailures: new Counter({
        name: 'convoy_health_sync_request_failures_total',
        help: 'Wake-ups that failed (the edge is kept and the pass retried)',
        registers,
      }),
      reads: new Counter({
        name: 'convoy_health_object_reads_total',
        help: 'GET/LIST requests for live objects',
        registers,
      }),
    };
    this.controller = harness.controller<K<Release>>({
      name: 'health',
      primary: releases,
      workers: opts.workers ?? 4,
      updateFilter: releaseUpdateMatters,
      shardOfKey: (key) => this.shardOfKey(key),
      reconcile: (key, { log }) => this.syncHandler(key, log),
      queue: { maxDelayMs: ERROR_BACKOFF_MAX_MS },
    });
    this.#m.syncFailures.inc(0);
    const keysOf = (rs: readonly K<Release>[]) => rs.map((r) => keyOf(r));
    this.controller
      .watch<K<ReleaseInventory>>({
        informer: this.#inventories,
        updateFilter: inventoryUpdateMatters,
        keys: (inv) => [keyOf(inv)],
      })
      .watch<K<HealthRuleSet>>({
        informer: this.#ruleSets,
        keys: (rs) => keysOf(releases.cache.byIndex(BY_NAMESPACE, rs.metadata.namespace ?? '')),
      })
      .watch<K<GlobalHealthRuleSet>>({ informer: this.#globalRuleSets, keys: () => releases.cache.keys() })
      .watch<K<Cluster>>({
        informer: this.#clusters,
        updateFilter: clusterUpdateMatters,
        keys: (c) => keysOf(releases.cache.byIndex(BY_CLUSTER, keyOf(c))),
      });
  }

  /** Completed passes of one Release (those that reached scheduleHealthRecheck). */
  passesOf(key: string): number {
    return this.#passesByKey.get(key) ?? 0;
  }

  /** The shard of a Release: its Cluster's, or its namespace's without one (DESIGN 1). */
  shardOfKey(key: string): number | undefined {
    const r = this.#releases.cache.get(key);
    if (r === undefined) return undefined;
    const ns = r.metadata.namespace ?? '';
    const name = r.spec?.cluster?.name;
    const count = this.#h.shardCount;
    if (name === undefined) return shardOf({ kind: 'namespace', namespace: ns }, count);
    const c = this.#clusters.cache.get(`${ns}/${name}`);
    return shardOf(
      {
        kind: 'cluster',
        namespace: ns,
        name,
        ...(c?.spec?.shard !== undefined ? { shard: c.spec.shard } : {}),
      },
      count,
    );
  }

  async syncHandler(key: string, log: Logger): Promise<ReconcileResult> {
    // 1. The Release from the cache; gone: the controller-manager deletes the inventory.
    const release = this.#writtenRelease.fresh(key, this.#releases.cache.get(key));
    if (release === undefined) {
      this.#forget(key);
      return this.#done('gone');
    }
    // 2. The shard gate ran before this handler (Controller checks shardOfKey against the elector).
    let inventory = this.#writtenInventory.fresh(key, this.#inventories.cache.get(key));
    // 3. Deletion: hooks only; Healthy is not written.
    if (release.metadata.deletionTimestamp !== undefined) {
      const hooks = await this.#pollHooks(release, inventory, log);
      if (isConflictResult(hooks)) return this.#conflict(log);
      if (hooks.written !== undefined) this.#writtenInventory.remember(key, inventory, hooks.written);
      const edge = hooks.finished.length > 0;
      const sent = await this.#wake(key, release, edge, log);
      if (sent !== undefined) return sent;
      const pending = pendingTargets({
        assessed: [],
        runningHooks: hooks.running,
        conditionReason: undefined,
        assessFailed: false,
      });
      return this.#schedule(key, release, pending, 'deleting');
    }
    // 4. Hooks; a polling error is logged, not returned.
    const hooks = await this.#pollHooks(release, inventory, log);
    if (isConflictResult(hooks)) return this.#conflict(log);
    if (hooks.written !== undefined)
      inventory = this.#writtenInventory.remember(key, inventory, hooks.written);
    // 5. Health.
    let outcome: AssessOutcome;
    let assessment: Assessment | undefined;
    if (release.spec.healthAssessment === undefined) {
      outcome = { kind: 'notConfigured' };
    } else {
      try {
        assessment = await this.#assess(release, inventory);
        this.stats.reads += assessment.reads;
        this.#m.reads.inc(assessment.reads);
        if (assessment.wroteInventory && assessment.inventory !== undefined) {
          this.#countWrite('inventory');
          this.#writtenInventory.remember(key, inventory, assessment.inventory);
        }
        outcome = { kind: 'assessed', entries: assessment.after };
      } catch (err) {
        if (isConflict(err)) return this.#conflict(log);
        const message = err instanceof Error ? err.message : String(err);
        log.warn({ err: message }, 'assessment failed');
        outcome = { kind: 'failed', message };
      }
    }
    const cond = healthyCondition({
      outcome,
      lastAttemptedRenderRef: release.status?.lastAttempted?.renderRef,
      previousSummary: release.status?.healthSummary,
    });
    try {
      await this.#writeHealth(key, release, cond);
    } catch (err) {
      if (isNotFound(err)) return this.#done('gone');
      throw err;
    }
    // 6. Wake the controller on an edge.
    const edge =
      hooks.finished.length > 0 ||
      (assessment !== undefined &&
        (assessment.renderAdvanced ||
          frontierWaveCompleted(
            assessment.before,
            assessment.after,
            release.status?.lastAttempted?.renderRef,
          )));
    const sent = await this.#wake(key, release, edge, log);
    if (sent !== undefined) return sent;
    // 7. Next pass.
    const pending = pendingTargets({
      assessed: assessment?.assessed ?? [],
      runningHooks: hooks.running,
      conditionReason: cond.reason,
      assessFailed: outcome.kind === 'failed',
    });
    return this.#schedule(key, release, pending, outcome.kind === 'failed' ? 'failed' : outcome.kind);
  }

  async #assess(release: Release, inventory: ReleaseInventory | undefined): Promise<Assessment> {
    const ruleSets = collectRules(release, this.#globalRuleSets.cache.list(), this.#ruleSets.cache.list());
    return assess(release, {
      ruleSets,
      inventory,
      resolveTarget: () => this.#resolveTarget(release),
      local: this.#o.client,
      now: this.#now,
      ...(this.#o.listThreshold !== undefined ? { listThreshold: this.#o.listThreshold } : {}),
    });
  }

  #resolveTarget(release: Release) {
    const name = release.spec.cluster?.name;
    const cluster =
      name === undefined ? undefined : this.#clusters.cache.get(`${release.metadata.namespace}/${name}`);
    return this.#targets.resolve(release, cluster);
  }

  async #pollHooks(
    release: Release,
    inventory: ReleaseInventory | undefined,
    log: Logger,
  ): Promise<PollResult | 'conflict'> {
    try {
      const r = await pollHooks(inventory, {
        target: async () => (await this.#resolveTarget(release)).client,
        local: this.#o.client,
        workloadNamespace: release.spec.render?.targetNamespace ?? release.metadata.namespace ?? '',
        now: this.#now,
      });
      if (r.written !== undefined) this.#countWrite('hooks');
      return r;
    } catch (err) {
      if (isConflict(err)) return 'conflict';
      log.warn({ err: err instanceof Error ? err.message : String(err) }, 'polling hooks failed');
      // Still due: recheck them with the same backoff as Running ones.
      const running = (inventory?.hooks ?? []).filter(shouldPoll).map((h) => h.name);
      return { written: undefined, finished: [], running, polled: 0 };
    }
  }

  async #writeHealth(key: string, release: Release, cond: HealthyCondition): Promise<void> {
    const body = healthStatusBody(cond, release.status, release.metadata.generation, formatTime(this.#now()));
    const written = await writeHealth(this.#o.client, release, body);
    if (written !== undefined) {
      this.#countWrite('status');
      this.#writtenRelease.remember(key, release, written);
    }
  }

  /** Sends the sync request on an edge, or for an edge kept from a pass whose request failed. */
  async #wake(
    key: string,
    release: Release,
    edge: boolean,
    log: Logger,
  ): Promise<ReconcileResult | undefined> {
    if (!edge && !this.#pendingSync.has(key)) return undefined;
    // Kept until a request succeeds: a failed one returns an error, and the retried pass sends it
    // even when it sees no new edge.
    this.#pendingSync.add(key);
    try {
      const outcome = await requestSync(
        this.#o.client,
        this.#o.sync ?? { kind: 'aggregated' },
        release,
        this.#now(),
      );
      if (outcome === 'gone') {
        this.#forget(key);
        return this.#done('gone');
      }
    } catch (err) {
      this.#m.syncFailures.inc();
      log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'sync request failed; kept for the next pass',
      );
      return { kind: 'error', error: err };
    }
    this.#pendingSync.delete(key);
    this.stats.syncRequests++;
    this.#m.syncs.inc();
    log.info('sync requested');
    return undefined;
  }

  #schedule(key: string, release: Release, pending: readonly string[], result: PassResult): ReconcileResult {
    const interval = parseOptionalDuration(release.spec.syncPolicy?.interval);
    const plan = planRecheck(this.#counts.get(key) ?? new Map(), pending, interval, this.#random);
    if (plan.counts.size === 0) this.#counts.delete(key);
    else this.#counts.set(key, plan.counts);
    this.#pass(result);
    this.#passesByKey.set(key, (this.#passesByKey.get(key) ?? 0) + 1);
    return plan.delayMs === undefined ? { kind: 'done' } : { kind: 'requeueAfter', ms: plan.delayMs };
  }

  #conflict(log: Logger): ReconcileResult {
    log.debug('inventory changed since it was cached; retrying');
    this.#pass('conflict');
    return { kind: 'requeueAfter', ms: CONFLICT_RETRY_MS };
  }

  #done(result: PassResult): ReconcileResult {
    this.#pass(result);
    return { kind: 'done' };
  }

  #pass(result: PassResult): void {
    this.stats.passes++;
    this.#m.passes.inc({ result });
  }

  #countWrite(object: 'inventory' | 'status' | 'hooks'): void {
    this.stats.writes++;
    this.#m.writes.inc({ object });
  }

  #forget(key: string): void {
    this.#counts.delete(key);
    this.#pendingSync.delete(key);
    this.#writtenInventory.forget(key);
    this.#writtenRelease.forget(key);
  }
}

function isConflictResult(r: PollResult | 'conflict'): r is 'conflict' {
  return r === 'conflict';
}
