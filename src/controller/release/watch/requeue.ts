// When the queue brings a Release back after a pass that wrote its status, the sync's and the
// deletion's alike (docs/design.md#rollout-wake-ups): nextWakeUp over the written status and the spec.
import type { Release } from '../../../api/types.ts';
import { isSuperseded, type ReconcileResult } from '../../../runtime/index.ts';
import { nextWakeUp, waveTimeoutAt } from '../decide/rollout/index.ts';
import type { ControllerStatus } from '../decide/status.ts';
import type { ReleaseDeps } from '../deps.ts';
import type { Outcome } from '../outcome.ts';

export function requeueAfterPass(
  release: Release,
  status: ControllerStatus,
  now: number,
  deleting: boolean,
): ReconcileResult {
  const wake = nextWakeUp({
    rollout: status.rollout,
    failurePolicy: release.spec.failurePolicy,
    pinned: release.spec.pin !== undefined,
    deleting,
    interval: release.spec.syncPolicy?.interval,
    now,
    waveTimeoutAt: waveTimeoutAt(status.waves, release.spec.waves, status.rollout?.renderRef),
  });
  if (wake.kind === 'none') return { kind: 'done' };
  // A deadline must be judged on time; an interval pass is routine and waits behind changes.
  const priority = wake.reason === 'interval' ? 'routine' : 'change';
  return { kind: 'requeueAfter', ms: wake.afterMs, priority };
}

/** After a sync pass: the error backoff for a failure a retry may fix, else the next wake-up. */
export function nextPass(
  release: Release,
  status: ControllerStatus,
  outcome: Outcome,
  deps: Pick<ReleaseDeps, 'log'>,
  now: number,
): ReconcileResult {
  const result = outcome.result;
  if (result.kind === 'failed') {
    deps.log.info({ reason: result.error.reason, err: result.error.message }, 'reconcile failed');
    if (!result.error.stalled) return { kind: 'error', error: result.error };
  }
  return requeueAfterPass(release, status, now, false);
}

/**
 * A pass aborted for a newer change (deletion, a sync request) records nothing only when the abort cut it
 * short: it stops only the source fetch, so a failed result is the abort's. A pass that got past the
 * render ran its sync to the end and is recorded (the key runs again for the newer change). Dropping
 * those too let an observer that asks for a sync every few seconds starve a Release whose sync takes
 * longer: applied again and again, never recorded (chaos seed 2). Pure.
 */
export function cutShort(outcome: Pick<Outcome, 'result'>, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && isSuperseded(signal.reason) && outcome.result.kind === 'failed';
}
