// Event filters of the health loop (docs/design.md#health-events): which updates add a Release's key. The
// inventory checks compare only controller-manager-owned fields, so the loop's own writes never wake it. The
// Cluster filter is the drift loop's too: ../../loop-keys.ts.
import { inventoryKeyOf } from '../../../api/keys.ts';
import type { Release, ReleaseInventory } from '../../../api/types.ts';

/**
 * Release: generation changed, deletion started, or the controller's status names another attempted
 * render (lastAttempted.renderRef: the render the Healthy condition waits for) or reports on another
 * generation (observedGeneration: its first report on a new Release, ./plan.ts holdPending); not
 * annotation-only changes nor any other status write, the loop's own included. The controller records the
 * inventory before it writes the status, so a pass woken by the record can find the attempt not yet written
 * and say Pending; without this wake-up the Release waited for the recheck backoff (the last of 1,000 new
 * Releases for 26 s; docs/design.md#health-events).
 */
export function releaseUpdateMatters(o: Release, n: Release): boolean {
  if (o.metadata.generation !== n.metadata.generation) return true;
  if (o.status?.lastAttempted?.renderRef !== n.status?.lastAttempted?.renderRef) return true;
  if (o.status?.observedGeneration !== n.status?.observedGeneration) return true;
  return o.metadata.deletionTimestamp === undefined && n.metadata.deletionTimestamp !== undefined;
}

const entryId = inventoryKeyOf;

/** The controller-owned projection of an inventory the health loop reacts to. */
function controllerView(inv: ReleaseInventory): string {
  const entries = (inv.entries ?? []).map((e) => [entryId(e), e.renderRef ?? ''] as const).sort();
  const hooks = (inv.hooks ?? [])
    .map((h) => [h.name, h.createdAt ?? '', h.workloadName ?? ''] as const)
    .sort();
  return JSON.stringify([entries, hooks]);
}

/**
 * ReleaseInventory: the set of entry keys, an entry's renderRef, the set of hook names, or a hook's
 * createdAt or workloadName changed.
 */
export function inventoryUpdateMatters(o: ReleaseInventory, n: ReleaseInventory): boolean {
  return controllerView(o) !== controllerView(n);
}
