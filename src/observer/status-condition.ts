// The one condition each observer loop owns in a Release's status (Healthy, Drifted), with metav1.Condition
// semantics both loops must share: lastTransitionTime moves only when the status changes, and a write is
// skipped only when every field it would send is already stored. loopStatus gives a loop its status body
// (the condition and the summary it owns beside it) and that check.
import type { Condition, ReleaseInventory, ReleaseStatus } from '../api/types.ts';
import { sameFields } from '../lib/same-fields.ts';

/** What a loop decided; the rest of the Condition comes from the stored one. */
export interface ConditionValue {
  readonly status: Condition['status'];
  readonly reason: string;
  readonly message: string;
}

/** A loop's condition as it decided it (Healthy, Drifted), with the summary it writes beside it. */
export interface LoopCondition<R extends string, S> extends ConditionValue {
  readonly reason: R;
  readonly summary: S;
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
  return sameFields(have, want, ['status', 'reason', 'message', 'lastTransitionTime', 'observedGeneration']);
}

/** The status field of a loop's summary, written with its condition. */
type SummaryField = 'healthSummary' | 'driftSummary';
type Summary<F extends SummaryField> = NonNullable<ReleaseStatus[F]>;

/** What a loop's status write applies: its one condition and its summary. */
export type LoopStatusBody<F extends SummaryField> = { readonly conditions: readonly Condition[] } & {
  readonly [K in F]: Summary<F>;
};

export interface LoopStatus<F extends SummaryField, C extends ConditionValue> {
  /** The body to apply; lastTransitionTime moves only when the condition's status changes. */
  body(
    cond: C,
    prior: ReleaseStatus | undefined,
    generation: number | undefined,
    now: string,
  ): LoopStatusBody<F>;
  /** True when the cached status already holds this condition and every field of the summary. */
  upToDate(prior: ReleaseStatus | undefined, body: LoopStatusBody<F>): boolean;
}

/** The status of the loop that owns condition `type` and summary `field`. */
export function loopStatus<
  F extends SummaryField,
  C extends ConditionValue & { readonly summary: Summary<F> },
>(type: string, field: F): LoopStatus<F, C> {
  return {
    body: (cond, prior, generation, now) => {
      const summary = { [field]: { ...cond.summary } } as Record<F, Summary<F>>;
      return { conditions: [nextCondition(type, cond, prior, generation, now)], ...summary };
    },
    upToDate: (prior, body) =>
      conditionStored(prior, body.conditions[0]) &&
      sameFields(
        prior?.[field] as Summary<F> | undefined,
        body[field],
        Object.keys(body[field]) as (keyof Summary<F>)[],
      ),
  };
}

/**
 * The controller has noted keys as pending but recorded no entry yet: it is applying its first wave, or
 * its record already landed and this process's inventory watch has not delivered it (the Release's status
 * event can come first, from another watch). A verdict over no entries would be a status write that the
 * record's own inventory event, which wakes both loops, replaces at once (docs/design.md#healthy-condition).
 */
export function recordInFlight(
  inventory: Pick<ReleaseInventory, 'entries' | 'pending'> | undefined,
): boolean {
  return (inventory?.entries ?? []).length === 0 && (inventory?.pending ?? []).length > 0;
}
