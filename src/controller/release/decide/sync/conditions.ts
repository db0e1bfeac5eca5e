// conditionsFor: the Ready and Stalled conditions a reconcile's outcome sets, like Flux's
// finalizeStatus. Ready=Unknown while convoy is making progress by itself, False when it needs
// something (a person, a fix, a retry), True once the render is applied. Stalled=True only for
// errors a retry cannot fix without a change. lastTransitionTime is status assembly's job.
import type { ReadyReason } from '../../../../api/types.ts';
import { assertNever } from '../../../../lib/assert-never.ts';
import type { ReleaseError } from '../../errors.ts';

/** Outcomes that apply nothing and return no error. */
export type HoldReason =
  | 'WaitingForApproval'
  | 'WaitingForClusterWave'
  | 'ClusterPaused'
  | 'Suspended'
  | 'WaitingForWaveHealth'
  | 'WaitingForHook'
  | 'WaveTimeout';

export type ReadyOutcome =
  | { readonly kind: 'synced'; readonly renderRef: string; readonly revision: string }
  /** applyLastHealthy applied the last healthy render instead of R. */
  | {
      readonly kind: 'rolledBack';
      readonly renderRef: string;
      readonly revision: string;
      readonly message: string;
    }
  /**
   * The rollout calls for the last healthy render but applyLastHealthy could not apply it (no last
   * healthy render stored, the target refused): R is not applied either, and no error is returned, so the
   * interval brings the next attempt without the error backoff (docs/design.md#apply-last-healthy).
   */
  | {
      readonly kind: 'rollbackHeld';
      readonly renderRef: string;
      readonly revision: string;
      readonly message: string;
    }
  | { readonly kind: 'held'; readonly reason: HoldReason; readonly message: string }
  | { readonly kind: 'failed'; readonly error: ReleaseError }
  | { readonly kind: 'deleting'; readonly message: string };

export type ConditionFields<T extends string, R extends string> = {
  readonly type: T;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: R;
  readonly message: string;
};

export type OutcomeConditions = {
  readonly ready: ConditionFields<'Ready', ReadyReason>;
  readonly stalled: ConditionFields<'Stalled', 'InvalidSpec' | 'NotStalled'>;
};

const notStalled = { type: 'Stalled', status: 'False', reason: 'NotStalled', message: '' } as const;

export function conditionsFor(outcome: ReadyOutcome): OutcomeConditions {
  switch (outcome.kind) {
    case 'synced':
      return {
        ready: {
          type: 'Ready',
          status: 'True',
          reason: 'Synced',
          message: `applied revision ${outcome.revision} (${short(outcome.renderRef)})`,
        },
        stalled: notStalled,
      };
    case 'rolledBack':
    case 'rollbackHeld':
      return {
        ready: { type: 'Ready', status: 'False', reason: 'RolledBack', message: outcome.message },
        stalled: notStalled,
      };
    case 'held':
      return {
        ready: {
          type: 'Ready',
          status: holdStatus(outcome.reason),
          reason: outcome.reason,
          message: outcome.message,
        },
        stalled: notStalled,
      };
    case 'failed': {
      const { error } = outcome;
      return {
        ready: { type: 'Ready', status: 'False', reason: error.reason, message: error.message },
        stalled: error.stalled
          ? { type: 'Stalled', status: 'True', reason: 'InvalidSpec', message: error.message }
          : notStalled,
      };
    }
    case 'deleting':
      return {
        ready: { type: 'Ready', status: 'Unknown', reason: 'Deleting', message: outcome.message },
        stalled: notStalled,
      };
    default:
      return assertNever(outcome);
  }
}

/** Unknown: it resolves by itself (other clusters, health, hooks). False: a person must act. */
function holdStatus(reason: HoldReason): 'False' | 'Unknown' {
  switch (reason) {
    case 'WaitingForApproval':
    case 'ClusterPaused':
    case 'Suspended':
    case 'WaveTimeout':
      return 'False';
    case 'WaitingForClusterWave':
    case 'WaitingForWaveHealth':
    case 'WaitingForHook':
      return 'Unknown';
    default:
      return assertNever(reason);
  }
}

function short(renderRef: string): string {
  return renderRef.length > 19 ? `${renderRef.slice(0, 19)}…` : renderRef;
}
