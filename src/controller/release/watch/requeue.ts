// When the queue brings a Release back after a pass that wrote its status, the sync's and the
// deletion's alike (docs/design.md#rollout-wake-ups): nextWakeUp over the written status and the spec.
import type { Release } from '../../../api/types.ts';
import type { ReconcileResult } from '../../../runtime/index.ts';
import { nextWakeUp, waveTimeoutAt } from '../decide/rollout/index.ts';
import type { ControllerStatus } from '../decide/status.ts';

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
  return wake.kind === 'requeue' ? { kind: 'requeueAfter', ms: wake.afterMs } : { kind: 'done' };
}
