// Hook resources (docs/design.md#hooks): a Helm hook object that is not a workload (a pre-install
// ServiceAccount, Role, RoleBinding…) is an object of the render, but its helm.sh/hook-delete-policy says
// when it goes: HookSucceeded once its phase's hooks of R succeeded, HookFailed once they failed. Such a
// resource is "spent" for R from then on: not applied again, not expected in the inventory, not judged,
// until a new render or a forced sync runs the phase again. Spent is read from the hook entries alone
// (planHookPhase's decision for the phase), so a restarted controller decides exactly as the one before it.
import type { InventoryHook } from '../../../../api/types.ts';
import { type HelmHookResource, helmHookResource } from '../../../../render/helm/hooks.ts';
import type { Obj } from '../../../../render/types.ts';
import { hookDefs } from './defs.ts';
import { type HookPhaseDecision, planHookPhase } from './plan.ts';

export type ResourcePhase = HelmHookResource['phase'];
export type PhaseOutcome = 'Succeeded' | 'Failed';
/** The outcome of each phase of R whose hooks have finished; a phase not named has not (or has no hooks). */
export type PhaseOutcomes = Readonly<Partial<Record<ResourcePhase, PhaseOutcome>>>;

/**
 * Whether a phase decision is final for R: its hooks all succeeded, or one failed. A decision over only
 * part of the phase (the hooks below a weight, planSync's preSyncTurns) is final only when one failed:
 * its success is not the phase's.
 */
export function phaseOutcome(
  decision: { readonly kind: string },
  part: 'whole' | 'part' = 'whole',
): PhaseOutcome | undefined {
  if (decision.kind === 'succeeded') return part === 'whole' ? 'Succeeded' : undefined;
  if (decision.kind === 'failed') return 'Failed';
  return undefined;
}

/** The hook resources among `objects` whose delete policy removes them after `outcomes`. */
export function spentHookResources(objects: readonly Obj[], outcomes: PhaseOutcomes): Obj[] {
  return objects.filter((o) => {
    const resource = helmHookResource(o.metadata.annotations);
    if (resource === undefined) return false;
    const outcome = outcomes[resource.phase];
    if (outcome === undefined) return false;
    return resource.deletePolicies.includes(outcome === 'Succeeded' ? 'HookSucceeded' : 'HookFailed');
  });
}

export interface HookOutcomesInput {
  readonly renderRef: string;
  /** render.hooks of R. */
  readonly hooks: readonly Obj[];
  /** ReleaseInventory.hooks as read. */
  readonly entries: readonly InventoryHook[];
  readonly forcedAt: string | undefined;
  /** epoch ms (planHookPhase's, unused for the outcome). */
  readonly now: number;
}

/** The outcome of R's PreSync and PostSync phases by its hook entries: a forced sync re-arms them (none). */
export function hookOutcomes(input: HookOutcomesInput): PhaseOutcomes {
  const of = (phase: ResourcePhase): HookPhaseDecision => planHookPhase({ ...input, phase });
  const pre = phaseOutcome(of('PreSync'));
  const post = phaseOutcome(of('PostSync'));
  return {
    ...(pre === undefined ? {} : { PreSync: pre }),
    ...(post === undefined ? {} : { PostSync: post }),
  };
}

/**
 * The objects of R that are to be live: every object but the hook resources their delete policy removed.
 * What the waves apply, what "R is applied" and the verdict expect in the inventory, what PostSync waits for.
 */
export function liveObjects(objects: readonly Obj[], input: HookOutcomesInput): readonly Obj[] {
  if (!objects.some((o) => helmHookResource(o.metadata.annotations) !== undefined)) return objects;
  const spent = new Set(spentHookResources(objects, hookOutcomes(input)));
  return spent.size === 0 ? objects : objects.filter((o) => !spent.has(o));
}

/**
 * The hook resources of the last healthy render L that a rollback to it leaves out: L's phases all
 * succeeded (that is what made it healthy), so its HookSucceeded resources were removed then — and a
 * rollback runs no hooks that would need them.
 */
export function spentOnceHealthy(render: {
  readonly objects: readonly Obj[];
  readonly hooks: readonly Obj[];
}): Obj[] {
  const phases = new Set(hookDefs(render.hooks).map((h) => h.phase));
  const outcomes: PhaseOutcomes = {
    ...(phases.has('PreSync') ? { PreSync: 'Succeeded' } : {}),
    ...(phases.has('PostSync') ? { PostSync: 'Succeeded' } : {}),
  };
  return spentHookResources(render.objects, outcomes);
}
