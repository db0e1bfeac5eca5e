// The drift loop's inventory write, Server-Side Apply under convoy-drift and skipped when the cached object
// already holds the values: writeInventoryDrift (entries' drifted/driftMessage, with the cached uid and
// resourceVersion as preconditions, so a stale cache never re-creates an inventory the controller deleted
// and a changed one answers 409). Its status part goes through ../status-writer.ts.
import { FIELD_MANAGERS } from '../../api/constants.ts';
import type { ReleaseInventory } from '../../api/types.ts';
import type { KubeClient } from '../../kube/client.ts';
import type { MergedInventory } from '../../kube/inventory-parts.ts';
import { applyEntryFieldsByPart } from '../writes.ts';
import { type InventoryDriftItem, inventoryDriftChanged } from './plan.ts';

/** Writes the parts whose drift changed; returns the stored parts ([] when nothing was written). */
export function writeInventoryDrift(
  client: KubeClient,
  inventory: MergedInventory,
  items: readonly InventoryDriftItem[],
  onWritten?: (replaced: ReleaseInventory, written: ReleaseInventory) => void,
): Promise<ReleaseInventory[]> {
  return applyEntryFieldsByPart(
    client,
    inventory,
    FIELD_MANAGERS.drift,
    items,
    inventoryDriftChanged,
    onWritten,
  );
}
