// Builders shared by the planRollout tests (plan-rollout*.test.ts): the three verdicts, a rollout in a
// state, and a plan input with every field a row does not name.
import { MIN, R1, R2, T0 } from './fixtures.ts';
import type { PlanInput } from './plan-rollout.ts';
import { formatTime } from './time.ts';
import type { Rollout, RolloutState } from './types.ts';
import type { Verdict } from './verdict.ts';

export const healthy: Verdict = { kind: 'Healthy', reason: 'Healthy', message: 'all healthy' };
export const unhealthy: Verdict = {
  kind: 'Unhealthy',
  reason: 'ObjectsUnhealthy',
  message: '1 of 1 objects not healthy',
};
export const pending: Verdict = { kind: 'Pending', reason: 'NotYetAssessed', message: 'not yet assessed' };
export const D = 10 * MIN;

/** startedAt null: a rollout whose clock has not started. */
export function rollout(state: RolloutState, renderRef: string, startedAt: number | null = T0): Rollout {
  const r: Rollout = {
    state,
    renderRef,
    revision: `rev-${renderRef.slice(7, 8)}`,
    reason: 'X',
    message: 'm',
  };
  return startedAt === null ? r : { ...r, startedAt: formatTime(startedAt) };
}

export function plan(over: Partial<PlanInput>): PlanInput {
  return {
    render: { renderRef: R2, revision: 'rev-2' },
    prior: rollout('Progressing', R2),
    verdict: pending,
    now: T0 + MIN,
    failurePolicy: { deadline: '10m', rollback: 'OnFailure' },
    lastHealthy: { renderRef: R1, revision: 'rev-1', time: formatTime(T0 - 60 * MIN) },
    forcedSyncPending: false,
    renderApplied: true,
    ...over,
  };
}
