// applyLastHealthy: one code path for the first rollback, the hold at each later reconcile and the rollback
// after a wave timeout (docs/design.md#apply-last-healthy). All objects of the last healthy render are
// applied in one pass: no waves, no dry run, no hooks, no store gc (status assembly records the
// re-apply as a history entry triggered by the rollback) — and none of the hook resources whose delete
// policy removed them once that render's hooks succeeded (docs/design.md#hooks).
import type { Release } from '../../../api/types.ts';
import { errorMessage } from '../../../lib/errors.ts';
import { nameOf, namespaceOf } from '../../../lib/names.ts';
import { waveOf } from '../../../render/keys.ts';
import { releaseLabelValue } from '../../../store/layout.ts';
import { spentOnceHealthy } from '../decide/hooks/index.ts';
import { formatTime, shortRef } from '../decide/rollout/index.ts';
import { type AppliedVersions, appliedCollector, inventoryEntryOf } from '../decide/sync/index.ts';
import type { ReleaseDeps } from '../deps.ts';
import type { LastHealthyResult } from '../outcome.ts';
import { applyAll } from './deployer.ts';
import { readInventory } from './inventory-open.ts';
import { InventoryWriter } from './inventory-writer.ts';
import { pruneLeft, settleInterrupted } from './prune.ts';
import { deleteStuckPods } from './stuck-pods.ts';
import type { Target } from './target.ts';

export async function applyLastHealthy(
  release: Release,
  target: Target,
  deps: ReleaseDeps,
): Promise<LastHealthyResult> {
  const healthy = release.status?.lastHealthy;
  // 1. nothing to return to
  if (healthy === undefined) return { applied: false, message: 'no rollback: status.lastHealthy is empty' };
  const ns = namespaceOf(release);
  const name = nameOf(release);
  try {
    // 2. the blob
    const render = await deps.store.get(ns, name, healthy.renderRef);
    if (render === undefined) {
      return {
        applied: false,
        message: `no rollback: render ${shortRef(healthy.renderRef)} is not in the render store`,
      };
    }
    // 3. one pass, noted as pending first (so a crash in between leaves nothing untracked)
    const uid = release.metadata.uid ?? '';
    const spent = new Set(spentOnceHealthy(render));
    const objects = spent.size === 0 ? render.objects : render.objects.filter((o) => !spent.has(o));
    const entriesOf = (versions?: AppliedVersions) =>
      objects.map((o) => inventoryEntryOf(o, healthy.renderRef, waveOf(o), versions));
    const writer = new InventoryWriter(deps.local, release, await readInventory(deps.local, release));
    await writer.notePending(entriesOf());
    const done = appliedCollector();
    await applyAll(target.client, objects, {
      releaseLabel: releaseLabelValue(ns, name),
      releaseUid: uid,
      onApplied: done.onApplied,
    });
    // 4 + 6. record every applied object with the last healthy render; objects a failed or interrupted
    // sync of the bad render left pending go as its recorded ones do
    await writer.record(entriesOf(done.versions));
    await settleInterrupted(objects, writer, release, target);
    // 5. prune with spec.syncPolicy.prune, as a sync does
    await pruneLeft(release, objects, writer, target);
    // 7. opt-in: delete the StatefulSets' Pods stuck on the bad revision (docs/design.md#apply-last-healthy)
    const notes = await deleteStuckPods(release, render.objects, target, deps);
    const message = `re-applied the last healthy render ${shortRef(healthy.renderRef)} (revision ${healthy.revision})`;
    return {
      applied: true,
      message,
      notes,
      attempt: {
        renderRef: healthy.renderRef,
        revision: healthy.revision,
        time: formatTime(deps.now()),
        applied: true,
        reason: 'RolledBack',
      },
    };
  } catch (err) {
    deps.log.error({ err: String(err) }, 'applyLastHealthy failed');
    return {
      applied: false,
      message: `rollback to ${shortRef(healthy.renderRef)} failed: ${errorMessage(err)}`,
    };
  }
}
