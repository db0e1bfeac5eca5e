// The plan of one sync of R, and the results its steps end in: pure, so the order of a sync reads (and is
// table-tested) in one place; stage-sync.ts runs the steps (docs/design.md#reconcile-order). Which steps:
// the dry run, persist, PreSync (docs/design.md#hooks), settling what an interrupted sync left pending,
// each wave with its gate's input (docs/design.md#waves, docs/design.md#wave-gate), prune
// (docs/design.md#prune), PostSync. No I/O here.
import type {
  InventoryEntry,
  LastAttempted,
  Release,
  ReleaseInventory,
  WaveStatus,
} from '../../../../api/types.ts';
import { assertNever } from '../../../../lib/assert-never.ts';
import { helmHookResource } from '../../../../render/helm/hooks.ts';
import { groupOf, objectKey } from '../../../../render/keys.ts';
import type { Obj, Render } from '../../../../render/types.ts';
import type { ReleaseError } from '../../errors.ts';
import {
  forcedAtOf,
  type HookOutcomesInput,
  hookDefs,
  liveObjects,
  type SyncHookStep,
  syncHooksSettled,
} from '../hooks/index.ts';
import { type Rollout, type WaveGateDecision, waveHealthGate } from '../rollout/index.ts';
import { groupWaves, renderApplied } from './index.ts';
import { servedKind } from './waves.ts';

/** What a sync that persisted ends with besides its kind: the attempt, status.waves so far, the notes. */
interface SyncRecord {
  readonly attempt: LastAttempted;
  readonly waves: readonly WaveStatus[];
  readonly notes: readonly string[];
}

type HeldReason = 'WaitingForWaveHealth' | 'WaveTimeout' | 'WaitingForHook';

export type SyncResult =
  | { readonly kind: 'upToDate' }
  | ({ readonly kind: 'synced' } & SyncRecord)
  /** A wave gate held (or, with action stop, failed the rollout) part-way; or PreSync/PostSync hooks run. */
  | ({
      readonly kind: 'held';
      readonly reason: HeldReason;
      readonly message: string;
      readonly rollout: Rollout | undefined;
    } & SyncRecord)
  /** The wave gate rolled back: the caller runs applyLastHealthy. */
  | ({ readonly kind: 'rollback'; readonly rollout: Rollout } & SyncRecord)
  | {
      readonly kind: 'failed';
      readonly error: ReleaseError;
      /** Undefined when the sync failed before persist (dry run). */
      readonly attempt: LastAttempted | undefined;
      readonly waves: readonly WaveStatus[] | undefined;
      readonly notes: readonly string[];
    };

/** A wave's gate as the spec sets it; decided when the wave's turn comes (waveGate), on the fresh inventory. */
export type WaveGatePlan =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'waitPrevious';
      readonly previousWave: number;
      /** spec.waves[].timeout (Go duration) */
      readonly timeout: string | undefined;
    };

export type SyncStep =
  /** Held for R's PostSync hooks after an earlier pass applied all of R: only PostSync may be left. */
  | { readonly kind: 'resumePostSync' }
  /** Any failure and nothing is written; left out for a render this process dry-ran in full already. */
  | { readonly kind: 'dryRun' }
  /**
   * Only for a render with CRDs of its own custom resources: what the dry run skipped for a CRD not yet
   * installed is dry-run once those CRDs are applied; a refusal removes the CRDs it created.
   */
  | { readonly kind: 'dryRunWithCrds' }
  /** The render store and the attempt. */
  | { readonly kind: 'persist' }
  /**
   * Only for a render with PreSync hooks: without any, the step decides nothing (and reads nothing). With
   * `belowWeight`, only the hooks of lower helm.sh/hook-weight, before the hook resources of that turn.
   */
  | { readonly kind: 'preSync'; readonly belowWeight?: number }
  /** Read the inventory for the sync, settle the keys an interrupted sync left pending. */
  | { readonly kind: 'settleInterrupted' }
  | {
      readonly kind: 'wave';
      readonly wave: number;
      readonly objects: readonly Obj[];
      /** The wave before it in R; undefined for the first, which no gate holds. */
      readonly previousWave: number | undefined;
      readonly gate: WaveGatePlan;
      /**
       * Helm's pre-install/pre-upgrade resources that are not workloads (a ServiceAccount, a Role…), applied
       * before the PreSync hooks that run under them; no gate, and no status.waves stamp of their own.
       */
      readonly hookResources?: true;
    }
  /** Highest wave first, then the hooks that left the render. */
  | { readonly kind: 'prune' }
  | { readonly kind: 'postSync' };

export type SyncPlan =
  | { readonly kind: 'upToDate' }
  | { readonly kind: 'sync'; readonly steps: readonly SyncStep[] };

export interface PlanInput {
  readonly release: Release;
  readonly rendered: { readonly renderRef: string; readonly render: Render };
  readonly forced: boolean;
  /** The reconcile's snapshot of the inventory. */
  readonly inventory: ReleaseInventory | undefined;
  /** epoch ms */
  readonly now: number;
  /**
   * Every object of R passed a dry run against this target, and no apply of R failed since
   * (sync/dry-run-memo.ts): a sync of R again (a held wave, a forced sync, a self-heal) skips it.
   */
  readonly dryRunPassed?: boolean;
}

export function planSync(input: PlanInput): SyncPlan {
  const { release, rendered, forced } = input;
  if (!forced && upToDate(release, rendered, input.inventory, input.now)) return { kind: 'upToDate' };
  const last = release.status?.lastAttempted;
  const resume = !forced && last?.renderRef === rendered.renderRef && last.reason === 'WaitingForHook';
  const preSync = hookDefs(rendered.render.hooks).some((h) => h.phase === 'PreSync');
  // HOOKS (docs/design.md#hooks): a chart's pre-install ServiceAccount, Role and RoleBinding go in
  // before the PreSync Job that runs under them, in Helm's order by weight (preSyncTurns); without PreSync
  // hooks they stay in their waves. Those their delete policy removed after R's hooks ran are not applied again.
  const objects = liveObjects(
    rendered.render.objects,
    outcomesInput(release, rendered, input.inventory, input.now),
  );
  const resources = preSync ? objects.filter(isPreSyncResource) : [];
  const waves = groupWaves(resources.length === 0 ? objects : objects.filter((o) => !isPreSyncResource(o)));
  const head: SyncStep[] = [
    ...(resume ? [{ kind: 'resumePostSync' } as const] : []),
    ...(input.dryRunPassed === true ? [] : [{ kind: 'dryRun' } as const]),
    ...(input.dryRunPassed !== true && definesItsKinds(objects) ? [{ kind: 'dryRunWithCrds' } as const] : []),
    { kind: 'persist' },
  ];
  const hooksFirst: SyncStep[] =
    resources.length === 0
      ? [...(preSync ? [{ kind: 'preSync' } as const] : []), { kind: 'settleInterrupted' }]
      : [
          { kind: 'settleInterrupted' },
          ...preSyncTurns(resources, rendered.render.hooks),
          { kind: 'preSync' },
        ];
  return {
    kind: 'sync',
    steps: [
      ...head,
      ...hooksFirst,
      ...waves.map((w, i): SyncStep => {
        const previous = waves[i - 1];
        const spec = release.spec.waves?.find((s) => s.wave === w.wave);
        const gate: WaveGatePlan =
          previous === undefined || spec?.healthStrategy !== 'WaitPrevious'
            ? { kind: 'none' }
            : { kind: 'waitPrevious', previousWave: previous.wave, timeout: spec.timeout };
        return { kind: 'wave', wave: w.wave, objects: w.objects, previousWave: previous?.wave, gate };
      }),
      { kind: 'prune' },
      { kind: 'postSync' },
    ],
  };
}

/** Whether a CRD of the render defines the kind of another of its objects. */
function definesItsKinds(objects: readonly Obj[]): boolean {
  const served = new Set(
    objects.flatMap((o) => {
      const k = servedKind(o);
      return k === undefined ? [] : [`${k.group}/${k.kind}`];
    }),
  );
  return served.size > 0 && objects.some((o) => served.has(`${groupOf(o.apiVersion)}/${o.kind}`));
}

/**
 * HOOKS (docs/design.md#hooks): the PreSync hook resources and hooks of R in Helm's order within the phase,
 * by helm.sh/hook-weight, then kind: each weight's resources go in once the hooks of lower weights
 * succeeded, and before that weight's own hooks — but for the kinds Helm creates after a Job (turn()).
 * The step after these runs the rest of the phase.
 */
function preSyncTurns(resources: readonly Obj[], hooks: readonly Obj[]): SyncStep[] {
  const hookWeights = hookDefs(hooks)
    .filter((h) => h.phase === 'PreSync')
    .map((h) => h.weight);
  const turns = [...new Set(resources.map(turn))].sort((a, b) => a - b);
  let done = Number.NEGATIVE_INFINITY;
  return turns.flatMap((t): SyncStep[] => {
    const before = hookWeights.some((w) => w >= done && w < t);
    done = t;
    const steps = groupWaves(resources.filter((o) => turn(o) === t)).map(
      (w): SyncStep => ({
        kind: 'wave',
        wave: w.wave,
        objects: w.objects,
        previousWave: undefined,
        gate: { kind: 'none' },
        hookResources: true,
      }),
    );
    return before ? [{ kind: 'preSync', belowWeight: t }, ...steps] : steps;
  });
}

/** Kinds Helm's install order puts after Job: of the same hook weight, created once its Jobs are done. */
const AFTER_JOBS: ReadonlySet<string> = new Set(['CronJob', 'IngressClass', 'Ingress', 'APIService']);

/** The weight below which every PreSync hook must have succeeded before this hook resource goes in. */
function turn(o: Obj): number {
  const weight = helmHookResource(o.metadata.annotations)?.weight ?? 0;
  return AFTER_JOBS.has(o.kind) ? weight + 1 : weight;
}

/** A Helm pre-install/pre-upgrade object that is not a workload (src/render/helm/hooks.ts). */
const isPreSyncResource = (o: Obj): boolean => helmHookResource(o.metadata.annotations)?.phase === 'PreSync';

/** What liveObjects reads: R's hooks and their entries in `inventory`, and the latest forced sync. */
export function outcomesInput(
  release: Release,
  rendered: { readonly renderRef: string; readonly render: Render },
  inventory: ReleaseInventory | undefined,
  now: number,
): HookOutcomesInput {
  return {
    renderRef: rendered.renderRef,
    hooks: rendered.render.hooks,
    entries: inventory?.hooks ?? [],
    forcedAt: forcedAtOf(release),
    now,
  };
}

/**
 * Whether R is applied, recorded and pruned already, and its PreSync and PostSync hooks have run (`now`:
 * epoch ms, for the hook planners), so syncing again would change nothing.
 */
export function upToDate(
  release: Release,
  rendered: { readonly renderRef: string; readonly render: Render },
  inventory: ReleaseInventory | undefined,
  now: number,
): boolean {
  const R = rendered.renderRef;
  if (!statusSaysSynced(release, R)) return false;
  // HOOKS (docs/design.md#hooks): a hook resource its delete policy removed is not expected; its entry is
  // a leftover until the hook step that deleted it drops it.
  const live = liveObjects(rendered.render.objects, outcomesInput(release, rendered, inventory, now));
  const objects = live.map(objectKey);
  const selfHeal = release.spec.syncPolicy?.selfHeal === true;
  if (!renderApplied({ renderRef: R, objects, inventory, selfHeal })) return false;
  const entries = inventory?.entries ?? [];
  // HOOKS (docs/design.md#hooks): a PostSync still to run, or a PreSync re-armed by a forced sync: work.
  return syncHooksSettled({
    renderRef: R,
    hooks: rendered.render.hooks,
    objects,
    entries,
    hookEntries: inventory?.hooks ?? [],
    healthAssessed: release.spec.healthAssessment !== undefined,
    forcedAt: forcedAtOf(release),
    now,
  });
}

/**
 * Whether the Release's status says R was applied and succeeded: then only the inventory (or a hook) can
 * still call for a sync, and the cached inventory may trail this process's own last record of R — the
 * inventory and Release watches deliver in no common order (docs/design.md#inventory-parts).
 */
export function statusSaysSynced(release: Release, R: string): boolean {
  const st = release.status;
  return (
    st?.lastSuccessful?.renderRef === R &&
    st.lastAttempted?.renderRef === R &&
    st.lastAttempted.applied === true
  );
}

/**
 * Whether a sync the cached inventory calls for is first checked against the API's inventory: when the
 * status says R is synced, the cache may only trail this process's own record of R. A forced sync runs
 * whatever the inventory says, so it reads nothing more.
 */
export function inventoryMayTrail(release: Release, R: string, forced: boolean): boolean {
  return !forced && statusSaysSynced(release, R);
}

export interface WaveGateState {
  readonly release: Release;
  readonly render: { readonly renderRef: string; readonly revision: string; readonly pinned: boolean };
  readonly wave: number;
  /** The inventory as re-read for this sync. */
  readonly entries: readonly InventoryEntry[];
  readonly waves: readonly WaveStatus[];
  readonly observerLive: boolean;
  readonly now: number;
}

/**
 * The wave whose keys are noted pending in the write that records `step` (sync/inventory): the next step
 * when it is a wave no gate holds, so it is applied right after; undefined otherwise (a gated wave is
 * noted only once its gate lets it go, so a hold leaves nothing of it pending).
 */
export function waveAhead(
  step: SyncStep,
  next: SyncStep | undefined,
): (SyncStep & { readonly kind: 'wave' }) | undefined {
  if (step.kind !== 'wave' || next?.kind !== 'wave' || next.gate.kind !== 'none') return undefined;
  return next;
}

/** The gate's decision when the wave's turn comes (docs/design.md#wave-gate). */
export function waveGate(gate: WaveGatePlan, s: WaveGateState): WaveGateDecision {
  if (gate.kind === 'none') return { kind: 'proceed' };
  // Already passed for R (the wave was applied, so it has a startedAt): a later sync of R (forced, drift,
  // a due prune) must not meet the long-expired timeout of a previous wave that turned unhealthy since.
  if (s.waves.some((w) => w.renderRef === s.render.renderRef && w.wave === s.wave))
    return { kind: 'proceed' };
  return waveHealthGate({
    render: { renderRef: s.render.renderRef, revision: s.render.revision },
    wave: s.wave,
    previousWave: gate.previousWave,
    entries: s.entries,
    waves: s.waves,
    timeout: gate.timeout,
    observerLive: s.observerLive,
    failurePolicy: s.release.spec.failurePolicy,
    pinned: s.render.pinned,
    prior: s.release.status?.rollout,
    lastHealthy: s.release.status?.lastHealthy,
    now: s.now,
  });
}

/** What the sync has gathered when a step ends it: the attempt's stamp, status.waves so far, the notes. */
export interface SyncSoFar {
  readonly attemptBase: Omit<LastAttempted, 'applied'>;
  readonly waves: readonly WaveStatus[];
  readonly notes: readonly string[];
}

/** The attempt of a sync that did not apply all of R, with the reason (and message) it stopped for. */
function notApplied(s: SyncSoFar, reason: LastAttempted['reason'], message?: string): LastAttempted {
  return { ...s.attemptBase, applied: false, reason, ...(message === undefined ? {} : { message }) };
}

export function failedSync(error: ReleaseError, s: SyncSoFar): SyncResult {
  const attempt = notApplied(s, error.reason, error.message);
  return { kind: 'failed', error, attempt, waves: s.waves, notes: s.notes };
}

/** Failed before any of R was noted or applied (a dry run, the render store, a read): no attempt to record. */
export function failedBeforeApply(error: ReleaseError, notes: readonly string[]): SyncResult {
  return { kind: 'failed', error, attempt: undefined, waves: undefined, notes };
}

/** Held part-way: the attempt records `reason`, `rollout` is set only when the gate moved one. */
function held(reason: HeldReason, message: string, rollout: Rollout | undefined, s: SyncSoFar): SyncResult {
  return {
    kind: 'held',
    reason,
    message,
    rollout,
    attempt: notApplied(s, reason),
    waves: s.waves,
    notes: s.notes,
  };
}

/** A gate that does not let the wave go: held, held with a failed rollout (action stop), or a rollback. */
export function gateStop(gate: WaveGateDecision, s: SyncSoFar): SyncResult | undefined {
  switch (gate.kind) {
    case 'proceed':
      return undefined;
    case 'hold':
      return held(gate.reason, gate.message, undefined, s);
    case 'transition':
      if (gate.action === 'applyLastHealthy') {
        const attempt = notApplied(s, 'WaveTimeout');
        return { kind: 'rollback', rollout: gate.rollout, attempt, waves: s.waves, notes: s.notes };
      }
      return held('WaveTimeout', gate.rollout.message ?? 'wave timeout', gate.rollout, s);
    default:
      return assertNever(gate);
  }
}

/** The result of a hook step (PreSync, PostSync): undefined to go on, else held or failed (or synced after PostSync). */
export function hookStop(step: SyncHookStep, s: SyncSoFar, last: boolean): SyncResult | undefined {
  if (step.kind === 'fail') return failedSync(step.error, s);
  // HOOKS (docs/design.md#hooks): PreSync or PostSync hooks of R run (or PostSync waits for health).
  if (step.kind === 'hold') return held('WaitingForHook', step.message, undefined, s);
  if (!last) return undefined;
  return { kind: 'synced', attempt: { ...s.attemptBase, applied: true }, waves: s.waves, notes: s.notes };
}
