// Event filters of the drift loop: which updates add a Release's key. Live objects are not watched (the
// interval polls them); what is watched is what changes the desired state or says the controller has
// just applied: a spec change, deletion, a new lastAttempted (a sync ran, maybe a selfHeal re-apply), and
// the inventory's controller-owned keys and renderRefs — never the observer's own fields.
import type { Release, ReleaseInventory } from '../../api/types.ts';

export function releaseUpdateMatters(o: Release, n: Release): boolean {
  if (o.metadata.generation !== n.metadata.generation) return true;
  if (o.metadata.deletionTimestamp === undefined && n.metadata.deletionTimestamp !== undefined) return true;
  const a = o.status?.lastAttempted;
  const b = n.status?.lastAttempted;
  return a?.renderRef !== b?.renderRef || a?.time !== b?.time || a?.applied !== b?.applied;
}

function controllerView(inv: ReleaseInventory): string {
  return JSON.stringify(
    (inv.entries ?? [])
      .map((e) => `${e.group}/${e.kind}/${e.namespace}/${e.name}@${e.renderRef ?? ''}`)
      .sort(),
  );
}

/** The set of entry keys, or an entry's renderRef, changed. */
export function inventoryUpdateMatters(o: ReleaseInventory, n: ReleaseInventory): boolean {
  return controllerView(o) !== controllerView(n);
}
