// Reason strings of status.rollout, one per transition, and the rollback eligibility shared by planRollout
// and waveHealthGate.
import type { FailurePolicy, RenderStamp } from './types.ts';

export const RolloutReason = {
  /** A render other than the rollout's opened a new rollout (row 2). */
  NewRender: 'NewRender',
  /** The pin was removed: the source's render is rolled out again with a fresh clock (row 2, DESIGN 4.9). */
  Unpinned: 'Unpinned',
  /** A forced sync retries a Failed or RolledBack render once (row 1). */
  ForcedRetry: 'ForcedRetry',
  /** The verdict for the render was Healthy (row 5). */
  Healthy: 'Healthy',
  /** Unhealthy at the rollout deadline (rows 6 and 7; the state says whether it rolled back). */
  DeadlineExceeded: 'DeadlineExceeded',
  /** A sync wave waited longer than its timeout for the previous wave (waveHealthGate). */
  WaveTimeout: 'WaveTimeout',
} as const;
export type RolloutReason = (typeof RolloutReason)[keyof typeof RolloutReason];

/**
 * Why a rollback is not possible, or undefined when it is. Beyond the seed (rollback ≠ Never, lastHealthy
 * set), a rollback to R itself is excluded: it would hold R as RolledBack forever (DESIGN 4.5). Whether a
 * render store exists is not checked here: applyLastHealthy reports that.
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
