// The health loop's inventory write: writeInventoryHealth (SSA, convoy-health-inventory), skipped when the
// cached object already holds the values; its status part goes through ../../status-writer.ts. The
// inventory apply carries the cached uid and resourceVersion: a stale cache can never re-create an
// inventory the controller deleted, and a changed one answers 409, which the caller turns into a requeue.
import { FIELD_MANAGERS } from '../../../api/constants.ts';
import type { ReleaseInventory } from '../../../api/types.ts';
import type { KubeClient } from '../../../kube/client.ts';
import type { MergedInventory } from '../../../kube/inventory-parts.ts';
import { applyEntryFieldsByPart } from '../../writes.ts';
import { type InventoryHealthItem, inventoryHealthChanged } from './plan.ts';

/** Writes the parts whose health changed; returns the stored parts ([] when nothing was written). */
export async function writeInventoryHealth(
  client: KubeClient,
  inventory: MergedInventory,
  items: readonly InventoryHealthItem[],
  onWritten?: (replaced: ReleaseInventory, written: ReleaseInventory) => void,
): Promise<ReleaseInventory[]> {
  if (items.length === 0) return [];
  return applyEntryFieldsByPart(
    client,
    inventory,
    FIELD_MANAGERS.healthInventory,
    items,
    inventoryHealthChanged,
    onWritten,
  );
}
