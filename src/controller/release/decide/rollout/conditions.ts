// setCondition: upsert of one condition in a status.conditions list-map (keyed by type), with the
// metav1.Condition rule that lastTransitionTime moves only when the status does.
import { formatTime } from './time.ts';
import type { Condition } from './types.ts';

export type ConditionUpdate = Omit<Condition, 'lastTransitionTime'>;

/** The same array when nothing changes, so a steady reconcile produces an identical status. */
export function setCondition(
  conditions: readonly Condition[],
  cond: ConditionUpdate,
  now: number,
): readonly Condition[] {
  const i = conditions.findIndex((c) => c.type === cond.type);
  const old = conditions[i];
  if (old === undefined) return [...conditions, { ...cond, lastTransitionTime: formatTime(now) }];
  if (old.status !== cond.status)
    return replaceAt(conditions, i, { ...cond, lastTransitionTime: formatTime(now) });
  if (
    old.reason === cond.reason &&
    old.message === cond.message &&
    old.observedGeneration === cond.observedGeneration
  ) {
    return conditions;
  }
  return replaceAt(conditions, i, { ...cond, lastTransitionTime: old.lastTransitionTime });
}

function replaceAt(conditions: readonly Condition[], i: number, c: Condition): readonly Condition[] {
  return conditions.map((x, j) => (j === i ? c : x));
}
