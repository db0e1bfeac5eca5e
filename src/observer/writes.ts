// The observer's inventory writes, shared by the health, drift and hook loops: its own fields of a
// ReleaseInventory, under the loop's field manager (the Release status: ./status-writer.ts). An
// inventory in parts (docs/design.md#inventory-parts) gets one apply per part whose entries change, each
// with that part's own preconditions.
import { API_VERSION, type FieldManager } from '../api/constants.ts';
import type { InventoryEntry, InventoryKey, ReleaseInventory } from '../api/types.ts';
import { applyObject, existingOnly, preconditionsOf } from '../kube/apply.ts';
import type { KubeClient } from '../kube/client.ts';
import { type MergedInventory, splitByPart } from '../kube/inventory-parts.ts';

/**
 * SSA of entries and/or hooks (list-map items carrying their keys and this manager's fields). The cached
 * uid and resourceVersion go along as preconditions: a stale cache can never re-create an inventory the
 * controller deleted, and a changed one answers 409, which the caller turns into a requeue.
 */
export function applyInventoryFields(
  client: KubeClient,
  inventory: ReleaseInventory,
  fieldManager: FieldManager,
  fields: {
    readonly entries?: readonly object[];
    readonly hooks?: readonly object[];
    readonly verification?: object;
  },
  preconditions: 'cached' | 'existingOnly' = 'cached',
): Promise<ReleaseInventory> {
  const body = {
    apiVersion: API_VERSION,
    kind: 'ReleaseInventory',
    metadata: { name: inventory.metadata.name, namespace: inventory.metadata.namespace },
    ...fields,
  };
  return applyObject(client, body as unknown as ReleaseInventory, {
    fieldManager,
    force: true,
    ...(preconditions === 'cached' ? preconditionsOf(inventory) : existingOnly(inventory)),
  });
}

/**
 * SSA of this manager's fields of entries, split by the part that holds each key: a part is written only
 * when `changed` says its cached entries differ from its items (a key in no part is not written: it left
 * the inventory). `onWritten` gets each stored part as it lands, so a failure in a later part keeps the
 * earlier writes known. Returns the stored parts.
 */
export async function applyEntryFieldsByPart<T extends InventoryKey>(
  client: KubeClient,
  inventory: MergedInventory,
  fieldManager: FieldManager,
  items: readonly T[],
  changed: (cached: readonly InventoryEntry[], items: readonly T[]) => boolean,
  onWritten: (replaced: ReleaseInventory, written: ReleaseInventory) => void = () => {},
): Promise<ReleaseInventory[]> {
  const byPart = splitByPart(items, inventory.parts, 'skip');
  const written: ReleaseInventory[] = [];
  for (const index of [...byPart.keys()].sort((a, b) => a - b)) {
    const part = inventory.objects.get(index);
    const list = byPart.get(index) ?? [];
    if (part === undefined || !changed(part.entries ?? [], list)) continue;
    const stored = await applyInventoryFields(client, part, fieldManager, { entries: list });
    onWritten(part, stored);
    written.push(stored);
  }
  return written;
}
