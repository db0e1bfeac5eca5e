// assembleStatus: the Release status fields the release controller owns after one reconcile
// (docs/design.md#status-assembly): lastAttempted, lastSuccessful, lastHealthy, rollout, the RolloutSucceeded
// condition and lastHandledForceSyncAt. Times change only when what they describe changes, so a steady
// reconcile yields a status equal to the prior one and the status writer has nothing to send.
import { assertNever } from '../../../../lib/assert-never.ts';
import { definedFields } from '../../../../lib/defined.ts';
import { sameFields } from '../../../../lib/same-fields.ts';
import { setCondition } from './conditions.ts';
import { formatTime } from './time.ts';
import type { Attempt, Condition, ConditionStatus, RenderStamp, Rollout, RolloutState } from './types.ts';
import type { Verdict } from './verdict.ts';

export const CONDITION_ROLLOUT_SUCCEEDED = 'RolloutSucceeded';

export interface RolloutStatusFields {
  readonly lastAttempted?: Attempt;
  readonly lastSuccessful?: RenderStamp;
  readonly lastHealthy?: RenderStamp;
  readonly rollout?: Rollout;
  readonly conditions?: readonly Condition[];
  readonly lastHandledForceSyncAt?: string;
}

export type OutcomeAttempt = { readonly kind: 'none' } | ({ readonly kind: 'attempt' } & Attempt);
export type OutcomeRollout =
  | { readonly kind: 'none' }
  | { readonly kind: 'rollout'; readonly rollout: Rollout };

export interface ReconcileOutcome {
  /** Set by persist or applyLastHealthy only; none when reconcile stopped before (render error, a gate). */
  readonly attempt: OutcomeAttempt;
  readonly rollout: OutcomeRollout;
}

/** One render's verdict, read once per reconcile from one inventory snapshot. */
export interface RenderVerdict {
  readonly renderRef: string;
  /** The render's revision, when known (R's always is). */
  readonly revision?: string;
  readonly verdict: Verdict;
}

export interface AssembleInput {
  readonly prior: RolloutStatusFields;
  readonly outcome: ReconcileOutcome;
  /** verdict for the attempt's render: the outcome's attempt, else status.lastAttempted. */
  readonly health: RenderVerdict | undefined;
  /**
   * verdict(R) exactly as planRollout read it (the same value, not a second reading). When the rollout
   * written is Succeeded(R) on this verdict, lastHealthy is R even if no attempt of R is recorded (a crash
   * between apply and status write, then a failed dry run): Healthy means every object of R is live with
   * renderRef R, so R is the attempt in the sense of docs/design.md#status-assembly, and Succeeded(R) never
   * goes out without it.
   */
  readonly planned?: (RenderVerdict & { readonly revision: string }) | undefined;
  readonly failurePolicySet: boolean;
  /** The force-sync-at value when a forced sync was pending in this reconcile. */
  readonly forcedSyncPendingAt: string | undefined;
  /** metadata.generation, for the condition's observedGeneration. */
  readonly generation: number;
  readonly now: number;
}

export function assembleStatus(input: AssembleInput): RolloutStatusFields {
  const { prior, outcome, now } = input;

  let lastAttempted = prior.lastAttempted;
  let lastSuccessful = prior.lastSuccessful;
  const attempt = outcome.attempt;
  switch (attempt.kind) {
    case 'none':
      break;
    case 'attempt': {
      const { kind: _, ...next } = attempt;
      if (!sameAttempt(prior.lastAttempted, next)) lastAttempted = next;
      if (next.applied && !sameRender(prior.lastSuccessful, next)) {
        lastSuccessful = { renderRef: next.renderRef, revision: next.revision, time: next.time };
      }
      break;
    }
    default:
      assertNever(attempt);
  }

  // Kept across an outcome without one (a transient source, render or cluster error, a pin), so a
  // RolledBack or Succeeded state survives; gone as soon as there is no failurePolicy.
  let rollout: Rollout | undefined;
  if (input.failurePolicySet) {
    switch (outcome.rollout.kind) {
      case 'none':
        rollout = prior.rollout;
        break;
      case 'rollout':
        rollout = outcome.rollout.rollout;
        break;
      default:
        assertNever(outcome.rollout);
    }
  }

  // Checked for every Release, with or without a failurePolicy; a failure never clears it.
  let lastHealthy = prior.lastHealthy;
  const health = input.health;
  const planned = input.planned;
  if (
    rollout?.state === 'Succeeded' &&
    planned?.renderRef === rollout.renderRef &&
    planned.verdict.kind === 'Healthy'
  ) {
    const stamp = { renderRef: rollout.renderRef, revision: planned.revision };
    if (!sameRender(prior.lastHealthy, stamp)) lastHealthy = { ...stamp, time: formatTime(now) };
  } else if (
    lastAttempted !== undefined &&
    health?.renderRef === lastAttempted.renderRef &&
    health.verdict.kind === 'Healthy' &&
    !sameRender(prior.lastHealthy, lastAttempted)
  ) {
    lastHealthy = {
      renderRef: lastAttempted.renderRef,
      revision: lastAttempted.revision,
      time: formatTime(now),
    };
  }

  let conditions = prior.conditions;
  if (rollout !== undefined) {
    conditions = setCondition(
      conditions ?? [],
      {
        type: CONDITION_ROLLOUT_SUCCEEDED,
        status: conditionStatus(rollout.state),
        reason: rollout.state,
        message: rollout.message ?? '',
        observedGeneration: input.generation,
      },
      now,
    );
  }

  const lastHandledForceSyncAt = input.forcedSyncPendingAt ?? prior.lastHandledForceSyncAt;

  // Undefined fields left out, so a steady status compares deep-equal with the stored one.
  return definedFields({
    lastAttempted,
    lastSuccessful,
    lastHealthy,
    rollout,
    conditions,
    lastHandledForceSyncAt,
  });
}

function conditionStatus(state: RolloutState): ConditionStatus {
  switch (state) {
    case 'Succeeded':
      return 'True';
    case 'Failed':
    case 'RolledBack':
      return 'False';
    case 'Progressing':
      return 'Unknown';
    default:
      return assertNever(state);
  }
}

/** The same attempt but for its time: a repeated persist of one render does not move lastAttempted.time. */
function sameAttempt(a: Attempt | undefined, b: Attempt): boolean {
  return sameFields(a, b, ['renderRef', 'revision', 'applied', 'reason', 'message']);
}

function sameRender(a: RenderStamp | undefined, b: { renderRef: string; revision: string }): boolean {
  return sameFields<{ renderRef: string; revision: string }>(a, b, ['renderRef', 'revision']);
}
