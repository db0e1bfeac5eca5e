// Reason strings of status.rollout, one per transition, and the rollback eligibility shared by planRollout
// and waveHealthGate.
import type { FailurePolicy, RenderStamp } from './types.ts';

export const RolloutReason = {
  /** A render other than the rollout's opened a new rollout (rule newRender). */
  NewRender: 'NewRender',
  /** The pin was removed: the source's render is rolled out again with a fresh clock (rule newRender). */
  Unpinned: 'Unpinned',
  /** A forced sync retries a Failed or RolledBack render once (rule forcedRetry). */
  ForcedRetry: 'ForcedRetry',
  /** The verdict for the render was Healthy (rule healthy). */
  Healthy: 'Healthy',
  /** Unhealthy at the rollout deadline (rules rollBack and fail; the state says which). */
  DeadlineExceeded: 'DeadlineExceeded',
  /** A sync wave waited longer than its timeout for the previous wave (waveHealthGate). */
  WaveTimeout: 'WaveTimeout',
  /** A verification check of the render failed past its failureLimit: final at once (rules rollBack and fail). */
  VerificationFailed: 'VerificationFailed',
} as const;
export type RolloutReason = (typeof RolloutReason)[keyof typeof RolloutReason];

/**
 * Why a rollback is not possible, or undefined when it is (docs/design.md#rollout-rules): rollback is not
 * Never, lastHealthy is set, and it is not R itself — a rollback to R would hold R as RolledBack forever.
 * Whether a render store exists is not checked here: applyLastHealthy reports that.
 */
export function rollbackBlocker(
  policy: FailurePolicy,
  lastHealthy: RenderStamp | undefined,
  renderRef: string,
): string | undefined {
  if (policy.rollback === 'Never') return 'failurePolicy.rollback is Never';
  if (lastHealthy === undefined) return 'no render has been healthy yet';
  if (lastHealthy.renderRef === renderRef) return 'the last healthy render is this render';
  return undefined;
}

/** rollbackEligible of docs/design.md#rollout-rules: a rollback from R to the last healthy render is possible. */
export function rollbackEligible(
  policy: FailurePolicy,
  lastHealthy: RenderStamp | undefined,
  renderRef: string,
): boolean {
  return rollbackBlocker(policy, lastHealthy, renderRef) === undefined;
}
