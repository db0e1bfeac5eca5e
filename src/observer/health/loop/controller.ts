// The HealthController (docs/design.md#health-loop): the observer's second controller on the shared harness.
// Queue key: namespace/name of the Release. syncHandler runs the steps of docs/design.md#one-health-pass —
// Release from the cache, shard gate (the harness checks it before the handler runs), deletion, hooks,
// health, wake the controller on an edge (./wake.ts), scheduleHealthRecheck. Attempt counts and unsent
// edges live in memory. Informers, shard gate, reads through own writes and the pass counters are
// ../../loop.ts and ../../part-controller.ts, shared with drift.
import { Counter } from 'prom-client';
import { GROUP, VERSION } from '../../../api/constants.ts';
import { parseOptionalDuration } from '../../../api/duration.ts';
import type { GlobalHealthRuleSet, HealthRuleSet, Release } from '../../../api/types.ts';
import { isConflict, isNotFound } from '../../../kube/errors.ts';
import type { MergedInventory } from '../../../kube/inventory-parts.ts';
import { errorMessage } from '../../../lib/errors.ts';
import { namespaceOf } from '../../../lib/names.ts';
import {
  type Harness,
  type Informer,
  keyOf,
  type Logger,
  type ReconcileResult,
} from '../../../runtime/index.ts';
import { type PollResult, pollHooks } from '../../hooks/poll.ts';
import type { K, LoopStats, ObserverLoopOptions } from '../../loop.ts';
import { PartController } from '../../part-controller.ts';
import { recordInFlight } from '../../status-condition.ts';
import { RecheckAttempts } from '../backoff.ts';
import { type AssessOutcome, type HealthyCondition, healthyCondition } from '../condition.ts';
import { controllerWakeNeeded } from '../edges.ts';
import { EvaluatorMemo } from '../evaluator-memo.ts';
import { type Assessment, assess } from './assess.ts';
import { inventoryUpdateMatters, releaseUpdateMatters } from './filters.ts';
import { pendingTargets } from './plan.ts';
import { collectRules } from './rules.ts';
import { ControllerWaker } from './wake.ts';
import { writeHealth } from './writes.ts';

/** The health loop takes the options every observer loop takes, nothing of its own. */
export type HealthControllerOptions = ObserverLoopOptions;

const base = `/apis/${GROUP}/${VERSION}`;
const BY_NAMESPACE = 'namespace';

type PassResult = 'assessed' | 'notConfigured' | 'failed' | 'deleting' | 'conflict' | 'gone';

/** The health loop's counts: the shared ones, and its reads of live objects. */
interface HealthStats extends LoopStats {
  reads: number;
}

export class HealthController extends PartController<
  HealthControllerOptions,
  HealthStats,
  PassResult,
  'inventory' | 'hooks'
> {
  /** Completed passes per Release key. */
  readonly #passesByKey = new Map<string, number>();
  readonly #ruleSets: Informer<K<HealthRuleSet>>;
  readonly #globalRuleSets: Informer<K<GlobalHealthRuleSet>>;
  readonly #attempts = new RecheckAttempts();
  readonly #waker: ControllerWaker;
  readonly #reads: Counter;
  readonly #evaluators = new EvaluatorMemo();

  constructor(harness: Harness, opts: HealthControllerOptions) {
    super(harness, opts, {
      part: 'health',
      stats: { passes: 0, writes: 0, syncRequests: 0, reads: 0 },
      byClusterIndex: 'cluster',
      releaseUpdateMatters,
      inventoryUpdateMatters,
      syncsHelp: 'Wake-ups (sync requests) sent to the controller',
    });
    opts.watches?.onChange('health', (key) => this.controller.queue.add(key));
    this.#ruleSets = harness.informer<K<HealthRuleSet>>({ path: `${base}/healthrulesets` });
    this.#globalRuleSets = harness.informer<K<GlobalHealthRuleSet>>({ path: `${base}/globalhealthrulesets` });
    const releases = this.loop.releases;
    releases.addIndex(BY_NAMESPACE, (r) => (r.metadata.namespace ? [r.metadata.namespace] : []));
    const registry = harness.metrics.registry;
    this.#waker = new ControllerWaker(registry, opts.client, opts.sync, this.now);
    this.#reads = new Counter({
      name: 'convoy_health_object_reads_total',
      help: 'GET/LIST requests for live objects',
      registers: [registry],
    });
    this.controller
      .watch<K<HealthRuleSet>>({
        informer: this.#ruleSets,
        keys: (rs) => releases.cache.byIndex(BY_NAMESPACE, namespaceOf(rs)).map((r) => keyOf(r)),
      })
      .watch<K<GlobalHealthRuleSet>>({ informer: this.#globalRuleSets, keys: () => releases.cache.keys() });
  }

  /** Completed passes of one Release (those that reached scheduleHealthRecheck). */
  passesOf(key: string): number {
    return this.#passesByKey.get(key) ?? 0;
  }

  /** One pass (docs/design.md#one-health-pass): the seed's steps in order, each one call. */
  async syncHandler(key: string, log: Logger): Promise<ReconcileResult> {
    // 1. The Release from the cache (docs/design.md#one-health-pass); gone: return.
    const release = this.loop.release(key);
    if (release === undefined) return this.forget(key, 'gone');
    // 2. Shard gate (docs/design.md#sharding): the harness checked shardOfKey before this handler ran.
    const inventory = this.loop.inventory(key);
    // 3. Deletion (docs/design.md#deletion): hooks only.
    if (release.metadata.deletionTimestamp !== undefined) return this.#deletion(key, release, inventory, log);
    // 4. Hooks (docs/design.md#hook-polling): pollHooks; a polling error is logged, not returned.
    const hooks = await this.#pollHooks(release, inventory, log);
    if (hooks === 'conflict') return this.counters.conflict(log);
    // 5. Health (docs/design.md#assessment): assess with writeInventoryHealth, then writeHealth.
    const health = await this.#health(key, release, hooks.inventory, log);
    if (health.kind === 'ended') return health.result;
    // 6. Wake the controller on an edge (docs/design.md#controller-wake-ups).
    const edge = controllerWakeNeeded({
      release,
      hooksFinished: hooks.poll.finished.length,
      assessment: health.assessment,
    });
    const woken = await this.#wake(key, release, edge, log);
    if (woken !== undefined) return woken;
    // 7. Next pass (docs/design.md#re-check-backoff): scheduleHealthRecheck.
    const pending = pendingTargets({
      assessed: health.assessment?.assessed ?? [],
      runningHooks: hooks.poll.running,
      conditionReason: health.condition.reason,
      assessFailed: health.outcome.kind === 'failed',
    });
    return this.#nextPass(key, release, pending, health.outcome.kind);
  }

  /**
   * Step 3, a Release being deleted (docs/design.md#deletion): pollHooks, POST /sync when a hook finished,
   * and the next pass with the running hooks as the only pending targets. No assessment, no Healthy.
   */
  async #deletion(
    key: string,
    release: Release,
    inventory: MergedInventory | undefined,
    log: Logger,
  ): Promise<ReconcileResult> {
    const hooks = await this.#pollHooks(release, inventory, log);
    if (hooks === 'conflict') return this.counters.conflict(log);
    const woken = await this.#wake(key, release, hooks.poll.finished.length > 0, log);
    if (woken !== undefined) return woken;
    const pending = pendingTargets({
      assessed: [],
      runningHooks: hooks.poll.running,
      conditionReason: undefined,
      assessFailed: false,
    });
    return this.#nextPass(key, release, pending, 'deleting');
  }

  /**
   * Step 5: without spec.healthAssessment NotConfigured, else assess (which writes the entries); then
   * writeHealth. A failed assessment is Healthy=Unknown, not an error of the pass; a 409 requeues.
   */
  async #health(
    key: string,
    release: Release,
    inventory: MergedInventory | undefined,
    log: Logger,
  ): Promise<HealthStep> {
    let outcome: AssessOutcome;
    let assessment: Assessment | undefined;
    if (release.spec.healthAssessment === undefined) {
      outcome = { kind: 'notConfigured' };
    } else {
      try {
        assessment = await this.#assess(key, release, inventory);
        outcome = { kind: 'assessed', entries: assessment.after };
      } catch (err) {
        if (isConflict(err)) return { kind: 'ended', result: this.counters.conflict(log) };
        const message = errorMessage(err);
        log.warn({ err: message }, 'assessment failed');
        outcome = { kind: 'failed', message };
      }
    }
    const condition = healthyCondition({
      outcome,
      lastAttemptedRenderRef: release.status?.lastAttempted?.renderRef,
      previousSummary: release.status?.healthSummary,
    });
    try {
      await writeHealth(
        this.statusWriter,
        key,
        release,
        condition,
        recordInFlight(inventory?.inventory),
        this.now(),
      );
    } catch (err) {
      if (isNotFound(err)) return { kind: 'ended', result: this.counters.done('gone') };
      throw err;
    }
    return { kind: 'written', outcome, assessment, condition };
  }

  /** assess with the rules collectRules selects, counting its reads and its inventory write. */
  async #assess(key: string, release: Release, inventory: MergedInventory | undefined): Promise<Assessment> {
    const ruleSets = collectRules(release, this.#globalRuleSets.cache.list(), this.#ruleSets.cache.list());
    const assessment = await assess(release, {
      ruleSets,
      compile: (sets) => this.#evaluators.get(sets),
      inventory,
      onWritten: (replaced, written) => this.loop.wroteInventoryObject(replaced, written),
      resolveTarget: () => this.target(release),
      local: this.opts.client,
      now: this.now,
      ...(this.opts.listThreshold !== undefined ? { listThreshold: this.opts.listThreshold } : {}),
      ...(this.opts.watches
        ? {
            read: this.opts.watches.readerOf('health', key),
            pods: this.opts.watches.podReaderOf('health', key),
          }
        : {}),
    });
    this.stats.reads += assessment.reads;
    this.#reads.inc(assessment.reads);
    if (assessment.written.length > 0) this.counters.wrote('inventory');
    return assessment;
  }

  /**
   * pollHooks (../../hooks/poll.ts), which logs a polling error; with the inventory as this pass sees it
   * after the hooks' write. A 409 from that write ends the pass.
   */
  async #pollHooks(
    release: Release,
    inventory: MergedInventory | undefined,
    log: Logger,
  ): Promise<Polled | 'conflict'> {
    try {
      const poll = await pollHooks(inventory?.inventory, {
        target: async () => (await this.target(release)).client,
        local: this.opts.client,
        workloadNamespace: release.spec.render?.targetNamespace ?? namespaceOf(release),
        now: this.now,
        log,
      });
      if (poll.written === undefined || inventory === undefined) return { poll, inventory };
      this.counters.wrote('hooks');
      return { poll, inventory: this.loop.wroteInventory(inventory, [poll.written]) };
    } catch (err) {
      if (isConflict(err)) return 'conflict';
      throw err;
    }
  }

  /** Wakes the controller on an edge (./wake.ts); a result ends the pass. */
  async #wake(
    key: string,
    release: Release,
    edge: boolean,
    log: Logger,
  ): Promise<ReconcileResult | undefined> {
    const w = await this.#waker.wake(key, release, edge, log);
    if (w.kind === 'gone') return this.forget(key, 'gone');
    if (w.kind === 'failed') return { kind: 'error', error: w.error };
    if (w.kind === 'sent') this.counters.synced();
    return undefined;
  }

  /** Ends a completed pass: scheduleHealthRecheck (../backoff.ts) over this process's attempt counts. */
  #nextPass(key: string, release: Release, pending: readonly string[], result: PassResult): ReconcileResult {
    const interval = parseOptionalDuration(release.spec.syncPolicy?.interval);
    const delayMs = this.#attempts.next(key, pending, interval, this.random);
    this.counters.pass(result);
    this.#passesByKey.set(key, (this.#passesByKey.get(key) ?? 0) + 1);
    return delayMs === undefined ? { kind: 'done' } : { kind: 'requeueAfter', ms: delayMs };
  }

  protected forgetOwn(key: string): void {
    this.#attempts.forget(key);
    this.#waker.forget(key);
  }
}

/** What pollHooks found, and the inventory as this pass sees it after the hooks' write. */
interface Polled {
  readonly poll: PollResult;
  readonly inventory: MergedInventory | undefined;
}

/** Step 5's end: the pass ended (a 409, the Release gone), or what it judged and wrote. */
type HealthStep =
  | { readonly kind: 'ended'; readonly result: ReconcileResult }
  | {
      readonly kind: 'written';
      readonly outcome: AssessOutcome;
      readonly assessment: Assessment | undefined;
      readonly condition: HealthyCondition;
    };
