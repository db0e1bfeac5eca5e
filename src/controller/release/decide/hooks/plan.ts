// planHookPhase: what the controller does next about one hook phase of one render — nothing, arm the
// hooks (create workloads, record inventory entries), wait for the observer, or go on because they all
// succeeded, or stop because one failed. Pure: the inventory entries carry all hook state, so a restarted
// controller decides exactly as the one before it.
import type { HookPhase } from '../../../../api/constants.ts';
import type { InventoryHook } from '../../../../api/types.ts';
import type { Obj } from '../../../../render/types.ts';
import { formatTime } from '../rollout/time.ts';
import { type HookWorkloadRef, workloadsToDelete } from './cleanup.ts';
import { formatGoDuration, type HookDef, hookDefs, hookNameConflicts, hookWorkloadName } from './defs.ts';

/** One hook to start: the edge creates its workload, then the inventory records hookInventoryEntry(). */
export interface HookArming {
  readonly hook: HookDef;
  readonly renderRef: string;
  readonly workloadName: string;
  /** RFC 3339, whole seconds. */
  readonly createdAt: string;
  /** The inventory entry of the same name this arming replaces (another render's, or this render's). */
  readonly previous: InventoryHook | undefined;
  /** The previous workload, deleted before the new one is created (BeforeHookCreation). */
  readonly deleteFirst: HookWorkloadRef | undefined;
  /**
   * The previous entry recorded this very workload name (the same render armed again, after a forced
   * sync): whatever exists under the name is an earlier run and is replaced, never adopted.
   */
  readonly rearm: boolean;
}

export type HookPhaseDecision =
  | { readonly kind: 'none' }
  | { readonly kind: 'arm'; readonly hooks: readonly HookArming[] }
  | {
      readonly kind: 'waiting';
      readonly running: readonly string[];
      readonly cleanup: readonly HookWorkloadRef[];
    }
  | { readonly kind: 'succeeded'; readonly cleanup: readonly HookWorkloadRef[] }
  | {
      readonly kind: 'failed';
      /** The hook's name; '' when the failure is the render's hook names (reason DuplicateHookName). */
      readonly hook: string;
      readonly reason: string;
      readonly message: string;
      readonly cleanup: readonly HookWorkloadRef[];
    };

export interface PlanHookPhaseInput {
  readonly phase: HookPhase;
  /** Every hook of the render (render.hooks); the plan picks those of `phase`. */
  readonly hooks: readonly Obj[];
  readonly renderRef: string;
  /** ReleaseInventory.hooks as read (controller's and observer's fields together). */
  readonly entries: readonly InventoryHook[];
  /**
   * RFC 3339 time of the latest forced sync: the force-sync-at annotation while it is pending, else
   * status.lastHandledForceSyncAt. An arming older than it is stale and the hook is armed again; a
   * stateless marker, so a forced sync whose own reconcile stopped early (a gate, a crash) still re-arms.
   */
  readonly forcedAt?: string | undefined;
  /** Epoch milliseconds. */
  readonly now: number;
  /**
   * Only the hooks of a lower helm.sh/hook-weight: the part of the phase that runs before the hook
   * resources of that weight go in (decide/sync/plan.ts). Its `succeeded` is not the phase's.
   */
  readonly belowWeight?: number | undefined;
}

/**
 * The entry records the current arming of `hook` for renderRef: same phase, kind and workload name, and
 * armed no earlier than the latest forced sync.
 */
export function armedFor(
  entry: InventoryHook | undefined,
  hook: HookDef,
  renderRef: string,
  forcedAt?: string | undefined,
): entry is InventoryHook & { createdAt: string } {
  if (
    entry === undefined ||
    entry.renderRef !== renderRef ||
    entry.phase !== hook.phase ||
    entry.kind !== hook.kind ||
    entry.workloadName !== hookWorkloadName(hook.name, renderRef) ||
    entry.createdAt === undefined
  ) {
    return false;
  }
  const created = Date.parse(entry.createdAt);
  if (Number.isNaN(created)) return false;
  const forced = forcedAt === undefined ? Number.NaN : Date.parse(forcedAt);
  return Number.isNaN(forced) || created >= forced;
}

/**
 * The observer's terminal state belongs to the current arming only when finishedAt ≥ createdAt: after a
 * re-arm the entry keeps the previous run's state until the observer polls the new workload.
 */
export function finishedState(entry: InventoryHook): 'Succeeded' | 'Failed' | undefined {
  if (entry.state !== 'Succeeded' && entry.state !== 'Failed') return undefined;
  if (entry.finishedAt === undefined || entry.createdAt === undefined) return undefined;
  const finished = Date.parse(entry.finishedAt);
  const created = Date.parse(entry.createdAt);
  if (Number.isNaN(finished) || Number.isNaN(created) || finished < created) return undefined;
  return entry.state;
}

/**
 * createdAt of a new arming: now, but never earlier than the replaced entry's finishedAt + 1 s (its result
 * must not count for the new arming, whatever the two processes' clocks say), nor its createdAt + 1 s (a
 * re-arm within the same second must still be a new arming), nor the forced sync it answers (else a
 * controller whose clock is behind the API's would find its own new arming stale).
 */
export function armingCreatedAt(
  previous: InventoryHook | undefined,
  now: number,
  forcedAt?: string | undefined,
): string {
  let at = Math.floor(now / 1000) * 1000;
  for (const t of [previous?.finishedAt, previous?.createdAt]) {
    const ms = t === undefined ? Number.NaN : Date.parse(t);
    if (!Number.isNaN(ms)) at = Math.max(at, Math.floor(ms / 1000) * 1000 + 1000);
  }
  const forced = forcedAt === undefined ? Number.NaN : Date.parse(forcedAt);
  if (!Number.isNaN(forced)) at = Math.max(at, Math.ceil(forced / 1000) * 1000);
  return formatTime(at);
}

/** The controller's fields of the inventory entry for an arming (manager convoy-controller). */
export function hookInventoryEntry(arming: HookArming): InventoryHook {
  return {
    name: arming.hook.name,
    phase: arming.hook.phase,
    kind: arming.hook.kind,
    renderRef: arming.renderRef,
    workloadName: arming.workloadName,
    createdAt: arming.createdAt,
    timeout: formatGoDuration(arming.hook.timeoutMs),
  };
}

export function planHookPhase(input: PlanHookPhaseInput): HookPhaseDecision {
  const all = hookDefs(input.hooks);
  const below = input.belowWeight ?? Number.POSITIVE_INFINITY;
  const hooks = all.filter((h) => h.phase === input.phase && h.weight < below);
  if (hooks.length === 0) return { kind: 'none' };
  const conflicts = hookNameConflicts(all);
  if (conflicts.length > 0) {
    return {
      kind: 'failed',
      hook: '',
      reason: 'DuplicateHookName',
      message: conflicts.join('; '),
      cleanup: [],
    };
  }
  const byName = new Map(input.entries.map((e) => [e.name, e]));
  const R = input.renderRef;

  // By ascending weight, as Helm runs them: a weight is armed only once every lower one succeeded.
  let cleanupSoFar: HookWorkloadRef[] = [];
  for (const weight of [...new Set(hooks.map((h) => h.weight))].sort((a, b) => a - b)) {
    const group = hooks.filter((h) => h.weight === weight);
    const decision = planWeight(group, byName, R, input);
    if (decision.kind !== 'succeeded') return withCleanup(decision, cleanupSoFar);
    cleanupSoFar = [...cleanupSoFar, ...decision.cleanup];
  }
  return { kind: 'succeeded', cleanup: cleanupSoFar };
}

/** The earlier weights' workloads to clean up, joined to a decision that carries a cleanup. */
function withCleanup(d: HookPhaseDecision, earlier: readonly HookWorkloadRef[]): HookPhaseDecision {
  if (earlier.length === 0 || d.kind === 'none' || d.kind === 'arm') return d;
  return { ...d, cleanup: [...earlier, ...d.cleanup] };
}

/** The decision for the hooks of one weight: arm, wait, fail, or all of them succeeded. */
function planWeight(
  hooks: readonly HookDef[],
  byName: ReadonlyMap<string, InventoryHook>,
  R: string,
  input: PlanHookPhaseInput,
): HookPhaseDecision {
  const cleanup: HookWorkloadRef[] = [];
  const toArm: HookArming[] = [];
  const running: string[] = [];
  let failed: { hook: HookDef; entry: InventoryHook } | undefined;
  for (const h of hooks) {
    const entry = byName.get(h.name);
    if (!armedFor(entry, h, R, input.forcedAt)) {
      toArm.push(arming(h, entry, R, input.now, input.forcedAt));
      continue;
    }
    const state = finishedState(entry);
    if (state === undefined) {
      // The observer's word on a running workload: why it has not started (its Warning Events), if known.
      const why = entry.state === 'Running' && entry.message ? ` (${entry.message})` : '';
      running.push(`${h.name}${why}`);
      continue;
    }
    cleanup.push(...workloadsToDelete(entry, h, 'finished'));
    if (state === 'Failed') failed ??= { hook: h, entry };
  }
  // A failed hook fails the phase at once: arming the rest would run work whose outcome no longer matters.
  if (failed !== undefined) {
    const { hook, entry } = failed;
    const why = [entry.reason, entry.message].filter((s) => s !== undefined && s !== '').join(': ');
    return {
      kind: 'failed',
      hook: hook.name,
      reason: entry.reason ?? 'Failed',
      message: `${hook.phase} hook ${hook.name} failed${why === '' ? '' : `: ${why}`}`,
      cleanup,
    };
  }
  if (toArm.length > 0) return { kind: 'arm', hooks: toArm };
  if (running.length > 0) return { kind: 'waiting', running, cleanup };
  return { kind: 'succeeded', cleanup };
}

function arming(
  hook: HookDef,
  previous: InventoryHook | undefined,
  renderRef: string,
  now: number,
  forcedAt: string | undefined,
): HookArming {
  const workloadName = hookWorkloadName(hook.name, renderRef);
  return {
    hook,
    renderRef,
    workloadName,
    createdAt: armingCreatedAt(previous, now, forcedAt),
    previous,
    // A previous workload of the same name is the edge's to replace (createHookWorkload), whatever the policy.
    deleteFirst:
      previous === undefined || previous.workloadName === workloadName
        ? undefined
        : workloadsToDelete(previous, hook, 'beforeCreation')[0],
    rearm: previous !== undefined && previous.workloadName === workloadName,
  };
}
