// The one condition each observer loop owns in a Release's status (Healthy, Drifted), with metav1.Condition
// semantics both loops must share: lastTransitionTime moves only when the status changes, and a write is
// skipped only when every field it would send is already stored.
import type { Condition, ReleaseStatus } from '../api/types.ts';

/** metav1.Time precision: whole seconds, UTC. */
export function formatTime(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

/** What a loop decided; the rest of the Condition comes from the stored one. */
export interface ConditionValue {
  readonly status: Condition['status'];
  readonly reason: string;
  readonly message: string;
}

/** The condition of `type` to apply over `prior`, stamped `now` when its status changes. */
export function nextCondition(
  type: string,
  value: ConditionValue,
  prior: ReleaseStatus | undefined,
  generation: number | undefined,
  now: string,
): Condition {
  const old = prior?.conditions?.find((c) => c.type === type);
  return {
    type,
    status: value.status,
    reason: value.reason,
    message: value.message,
    lastTransitionTime: old !== undefined && old.status === value.status ? old.lastTransitionTime : now,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
}

/** True when `prior` already stores `want` (same type) as it would be applied. */
export function conditionStored(prior: ReleaseStatus | undefined, want: Condition | undefined): boolean {
  if (want === undefined) return false;
  const have = prior?.conditions?.find((c) => c.type === want.type);
  return (
    have !== undefined &&
    have.status === want.status &&
    have.reason === want.reason &&
    have.message === want.message &&
    have.lastTransitionTime === want.lastTransitionTime &&
    have.observedGeneration === want.observedGeneration
  );
}
