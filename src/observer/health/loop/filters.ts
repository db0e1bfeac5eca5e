// Event filters of the health loop (docs/design.md#health-events): which updates add a Release's key. The
// inventory checks compare only controller-manager-owned fields, so the loop's own writes never wake it. The
// Cluster filter is the drift loop's too: ../../loop-keys.ts.
import type { Release, ReleaseInventory } from '../../../api/types.ts';

/** Release: generation changed or deletion started; not annotation-only changes or status writes. */
export function releaseUpdateMatters(o: Release, n: Release): boolean {
  if (o.metadata.generation !== n.metadata.generation) return true;
  return o.metadata.deletionTimestamp === undefined && n.metadata.deletionTimestamp !== undefined;
}

const entryId = (e: { group: string; kind: string; namespace: string; name: string }) =>
  `${e.group}/${e.kind}/${e.namespace}/${e.name}`;

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
