// The VerificationController (docs/design.md#verification): the observer's third loop on the shared harness,
// beside health and drift, keyed by Release. Once every object of the rollout's render is Healthy it runs
// the render's checks every interval over the soak, and records each measurement in the inventory's
// `verification` under its own field manager; the controller's verdict reads it. It never decides a
// rollout: a failed check is recorded, the controller rolls back. A provider that is down gives
// inconclusive measurements, never a failure.
import { Counter } from 'prom-client';
import { FIELD_MANAGERS } from '../../api/constants.ts';
import type { VerificationStatus } from '../../api/index.ts';
import type { Release } from '../../api/types.ts';
import type { KubeClient } from '../../kube/client.ts';
import { isConflict, isNotFound } from '../../kube/errors.ts';
import type { MergedInventory } from '../../kube/inventory-parts.ts';
import type { Harness, Logger, ReconcileResult } from '../../runtime/index.ts';
import { TargetResolver } from '../health/loop/target.ts';
import { LoopCounters, ReleaseLoop } from '../loop.ts';
import { applyInventoryFields } from '../writes.ts';
import type { VerifyEngine } from './engine.ts';
import { inventoryUpdateMatters, releaseUpdateMatters } from './filters.ts';
import { planVerification, verificationTimes } from './plan.ts';

export interface VerificationControllerOptions {
  /** Client of the cluster the observer runs in (Releases, inventories, Secrets, AnalysisTemplates). */
  readonly client: KubeClient;
  readonly engine: VerifyEngine;
  readonly workers?: number;
  readonly now?: () => Date;
}

type PassResult = 'idle' | 'waiting' | 'measured' | 'gone';

/** A pass that found nothing due comes back at least this often (a missed wake-up costs at most this). */
const MAX_IDLE_MS = 60_000;

export class VerificationController {
  readonly stats = { passes: 0, writes: 0, syncRequests: 0, measurements: 0 };
  readonly #o: VerificationControllerOptions;
  readonly #now: () => Date;
  readonly #loop: ReleaseLoop;
  /** Where job checks' Jobs are read: the Release's target cluster. */
  readonly #targets: TargetResolver;
  readonly #c: LoopCounters<PassResult, 'inventory'>;
  readonly #measurements: Counter<'phase'>;

  constructor(harness: Harness, opts: VerificationControllerOptions) {
    this.#o = opts;
    this.#now = opts.now ?? (() => new Date());
    this.#targets = new TargetResolver(opts.client);
    this.#loop = new ReleaseLoop(harness, {
      name: 'verification',
      workers: opts.workers,
      byClusterIndex: 'verification-cluster',
      releaseUpdateMatters,
      inventoryUpdateMatters,
      reconcile: (key, log) => this.syncHandler(key, log),
    });
    const registry = harness.metrics.registry;
    this.#c = new LoopCounters(
      registry,
      this.stats,
      'verification',
      'Unused: the inventory write wakes the controller',
    );
    this.#measurements = new Counter({
      name: 'convoy_verification_measurements_total',
      help: 'Measurements taken, by phase',
      labelNames: ['phase'],
      registers: [registry],
    });
  }

  /** One pass: plan, measure what is due, record, come back when the next measurement is due. */
  async syncHandler(key: string, log: Logger): Promise<ReconcileResult> {
    const release = this.#loop.release(key);
    if (release === undefined) {
      this.#loop.forget(key);
      return this.#c.done('gone');
    }
    const inventory = this.#loop.inventory(key);
    const now = this.#now();
    const plan = planVerification(release, inventory?.inventory, now);
    switch (plan.kind) {
      case 'idle':
        return this.#c.done('idle');
      case 'waiting':
        return this.#c.done('waiting');
      case 'measure':
        return this.#measure(release, inventory, plan.status, now, log);
    }
  }

  async #measure(
    release: Release,
    inventory: MergedInventory | undefined,
    prior: VerificationStatus,
    now: Date,
    log: Logger,
  ): Promise<ReconcileResult> {
    const head = inventory?.objects.get(0);
    if (head === undefined) return this.#c.done('waiting');
    const times = verificationTimes(release);
    const target = async () => (await this.#targets.resolve(release, this.#loop.clusterOf(release))).client;
    const step = await this.#o.engine.step(release, prior, now, times, target);
    for (const m of step.taken) this.#measurements.inc({ phase: m.phase });
    this.stats.measurements += step.taken.length;
    if (step.status !== prior) {
      try {
        const written = await applyInventoryFields(
          this.#o.client,
          head,
          FIELD_MANAGERS.verification,
          { verification: step.status },
          'existingOnly',
        );
        this.#loop.wroteInventoryObject(head, written);
        this.#c.wrote('inventory');
      } catch (err) {
        if (isNotFound(err)) return this.#c.done('gone');
        if (isConflict(err)) return this.#c.conflict(log);
        throw err;
      }
      if (step.status.phase !== prior.phase) {
        log.info(
          { renderRef: step.status.renderRef, phase: step.status.phase, message: step.status.message },
          'verification phase changed',
        );
      }
    }
    this.#c.pass('measured');
    const next = step.nextAt === undefined ? MAX_IDLE_MS : step.nextAt.getTime() - this.#now().getTime();
    return { kind: 'requeueAfter', ms: Math.max(0, Math.min(MAX_IDLE_MS, next)) };
  }
}
