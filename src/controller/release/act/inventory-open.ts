// Where a sync, a rollback, a hook run or a deletion starts writing the inventory from: every part as the
// API has it now (not the cache), or, for a Release that cannot have one yet, nothing without a read
// (docs/design.md#inventory-parts). InventoryWriter takes it from here.
import type { Release } from '../../../api/types.ts';
import type { KubeClient } from '../../../kube/client.ts';
import type { MergedInventory } from '../../../kube/inventory-parts.ts';
import { readInventoryParts } from '../../../kube/inventory-read.ts';
import { nameOf, namespaceOf } from '../../../lib/names.ts';
import { neverAttempted } from '../../../store/keep.ts';
import type { ReleaseDeps } from '../deps.ts';

/** The ReleaseInventory, every part, as the API has it now (not the cache): what a writer must start from. */
export function readInventory(local: KubeClient, release: Release): Promise<MergedInventory | undefined> {
  return readInventoryParts(local, {
    namespace: namespaceOf(release),
    name: nameOf(release),
  });
}

/**
 * The inventory a sync starts writing from: none, without a read, for a Release that cannot have one —
 * never attempted (no lastAttempted, no history), none in the informer cache (synced before any
 * reconcile, so it holds whatever an earlier process wrote) and not opened by this process before (whose
 * own writes the cache may not show yet); else as the API has it now (readInventory). The uid is noted
 * before the first write, so a second sync of the Release always reads. Two requests less for a new
 * Release (docs/design.md#inventory-parts).
 */
export async function openInventory(
  deps: Pick<ReleaseDeps, 'local' | 'cachedInventory'> & {
    readonly memory: Pick<ReleaseDeps['memory'], 'inventoriesOpened'>;
  },
  release: Release,
): Promise<MergedInventory | undefined> {
  const uid = release.metadata.uid ?? '';
  const opened = deps.memory.inventoriesOpened;
  const fresh =
    uid !== '' &&
    !opened.has(uid) &&
    neverAttempted(release.status) &&
    deps.cachedInventory(namespaceOf(release), nameOf(release)) === undefined;
  opened.add(uid);
  return fresh ? undefined : readInventory(deps.local, release);
}
