// suspendGate: spec.suspend holds everything, before any render, rollout decision or rollback.
// stageGates: the manual sync mode and the cluster wave gate (sync/gates.ts decides). Only a person's
// approval of this very render (approved-render), a pending forced sync, or a pin opens the manual
// gate; the observer's wake-ups (sync-requested-at) never do. A pin counts as approval because it is a
// person naming a render in the spec.
import { ANNOTATION_APPROVED_RENDER } from '../../../api/constants.ts';
import type { Release } from '../../../api/types.ts';
import { clusterWaveGate, type GateDecision, gateDecision } from '../decide/sync/index.ts';
import type { ReleaseDeps } from '../deps.ts';

export function stageGates(
  release: Release,
  render: { readonly renderRef: string; readonly revision: string; readonly pinned: boolean },
  forced: boolean,
  deps: Pick<ReleaseDeps, 'clusterWave'>,
): GateDecision {
  const annotations = release.metadata.annotations ?? {};
  const approved = render.pinned ? render.renderRef : annotations[ANNOTATION_APPROVED_RENDER];
  const wave = deps.clusterWave?.(release, render.revision);
  return gateDecision({
    mode: release.spec.syncPolicy?.mode,
    renderRef: render.renderRef,
    approvedRender: approved,
    forcedSyncPending: forced,
    appliedRender: release.status?.lastSuccessful?.renderRef,
    clusterWave: wave === undefined ? { kind: 'open' } : clusterWaveGate(wave),
  });
}

/**
 * A suspended Release (spec.suspend: true, like `flux suspend`) is neither synced nor rolled back:
 * reconcile stops here, before rendering, so nothing is applied, pruned or re-applied and the rollout
 * clock is not acted on; Ready=False with reason Suspended says so until it is resumed.
 */
export function suspendGate(release: Release): GateDecision {
  if (release.spec.suspend !== true) return { kind: 'open' };
  return {
    kind: 'held',
    reason: 'Suspended',
    message:
      'spec.suspend is true: convoy neither syncs nor rolls back this Release; set it to false (convoy resume) to continue',
  };
}
