// postSyncReady: the moment PostSync hooks of R may start — every object of R is applied (recorded with
// renderRef R, so the last wave is in) and, when the Release assesses health, Healthy as assessed for R.
// Without healthAssessment the observer assesses nothing, so "applied" is all there is to wait for.
// planPostSync: once armed, PostSync hooks run to their end even if an object turns unhealthy meanwhile.
import type { InventoryEntry, InventoryHook, InventoryKey } from '../../../../api/types.ts';
import type { Obj } from '../../../../render/types.ts';
import { describeObject, objectKey } from '../rollout/types.ts';
import { hookDefs } from './defs.ts';
import { armedFor, type HookPhaseDecision, planHookPhase } from './plan.ts';

export interface PostSyncReadyInput {
  readonly renderRef: string;
  /** Every object of R (not its hooks). */
  readonly objects: readonly InventoryKey[];
  readonly entries: readonly InventoryEntry[];
  /** spec.healthAssessment is set. */
  readonly healthAssessed: boolean;
}

export type PostSyncReadiness =
  | { readonly ready: true }
  | { readonly ready: false; readonly reason: 'NotYetApplied' | 'NotYetHealthy'; readonly message: string };

export function postSyncReady(input: PostSyncReadyInput): PostSyncReadiness {
  const byKey = new Map(input.entries.map((e) => [objectKey(e), e]));
  const ofR = input.objects.map((o) => ({ o, e: byKey.get(objectKey(o)) }));
  const unapplied = ofR.filter((x) => x.e?.renderRef !== input.renderRef);
  if (unapplied.length > 0) {
    return {
      ready: false,
      reason: 'NotYetApplied',
      message: `PostSync hooks wait for ${unapplied.length} objects to be applied: ${names(unapplied.map((x) => x.o))}`,
    };
  }
  if (!input.healthAssessed) return { ready: true };
  const unhealthy = ofR.filter((x) => x.e?.assessedRenderRef !== input.renderRef || x.e?.state !== 'Healthy');
  if (unhealthy.length > 0) {
    return {
      ready: false,
      reason: 'NotYetHealthy',
      message: `PostSync hooks wait for ${unhealthy.length} objects to be Healthy: ${names(unhealthy.map((x) => x.o))}`,
    };
  }
  return { ready: true };
}

function names(objects: readonly InventoryKey[]): string {
  const shown = objects.slice(0, 3).map(describeObject).join('; ');
  return objects.length > 3 ? `${shown}; and ${objects.length - 3} more` : shown;
}

export interface PlanPostSyncInput extends PostSyncReadyInput {
  /** render.hooks of R. */
  readonly hooks: readonly Obj[];
  readonly hookEntries: readonly InventoryHook[];
  readonly forcedAt?: string | undefined;
  readonly now: number;
}

export type PostSyncDecision =
  | HookPhaseDecision
  | {
      readonly kind: 'notReady';
      readonly reason: 'NotYetApplied' | 'NotYetHealthy';
      readonly message: string;
    };

/**
 * After the last wave of R: 'none' (no PostSync hooks), 'notReady' (objects not yet applied or healthy,
 * nothing armed yet), else planHookPhase's decision for PostSync.
 */
export function planPostSync(input: PlanPostSyncInput): PostSyncDecision {
  const postSync = hookDefs(input.hooks).filter((h) => h.phase === 'PostSync');
  if (postSync.length === 0) return { kind: 'none' };
  const byName = new Map(input.hookEntries.map((e) => [e.name, e]));
  const started = postSync.some((h) => armedFor(byName.get(h.name), h, input.renderRef, input.forcedAt));
  if (!started) {
    const readiness = postSyncReady(input);
    if (!readiness.ready) return { kind: 'notReady', reason: readiness.reason, message: readiness.message };
  }
  return planHookPhase({
    phase: 'PostSync',
    hooks: input.hooks,
    renderRef: input.renderRef,
    entries: input.hookEntries,
    forcedAt: input.forcedAt,
    now: input.now,
  });
}
