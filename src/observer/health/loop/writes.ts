// The health loop's writes: writeInventoryHealth (SSA, convoy-health-inventory) and writeHealth (SSA of the
// Release status, convoy-health). Both skip the request when the cached object already holds the values.
// The inventory apply carries the cached uid and resourceVersion: a stale cache can never re-create an
// inventory the controller deleted, and a changed one answers 409, which the caller turns into a requeue.
import { API_VERSION, FIELD_MANAGERS } from '../../../api/constants.ts';
import type { Release, ReleaseInventory } from '../../../api/types.ts';
import { applyObject, preconditionsOf } from '../../../kube/apply.ts';
import type { KubeClient } from '../../../kube/client.ts';
import { writeStatus } from '../../../kube/status.ts';
import {
  type HealthStatusBody,
  healthStatusUpToDate,
  type InventoryHealthItem,
  inventoryHealthChanged,
} from './plan.ts';

/** Returns the stored inventory when it wrote, undefined when there was nothing to write. */
export async function writeInventoryHealth(
  client: KubeClient,
  inventory: ReleaseInventory,
  items: readonly InventoryHealthItem[],
): Promise<ReleaseInventory | undefined> {
  if (items.length === 0) return undefined;
  if (!inventoryHealthChanged(inventory.entries ?? [], items)) return undefined;
  const body = {
    apiVersion: API_VERSION,
    kind: 'ReleaseInventory',
    metadata: { name: inventory.metadata.name, namespace: inventory.metadata.namespace },
    entries: items,
  };
  return applyObject(client, body as unknown as ReleaseInventory, {
    fieldManager: FIELD_MANAGERS.healthInventory,
    force: true,
    ...preconditionsOf(inventory),
  });
}

/** Returns the stored Release when it wrote, undefined when the cached status was already up to date. */
export async function writeHealth(
  client: KubeClient,
  release: Release,
  body: HealthStatusBody,
): Promise<Release | undefined> {
  if (healthStatusUpToDate(release.status, body)) return undefined;
  const r = await writeStatus<Release>(
    client,
    { kind: 'Release', namespace: release.metadata.namespace, name: release.metadata.name ?? '' },
    body as unknown as Record<string, unknown>,
    { fieldManager: FIELD_MANAGERS.health },
  );
  return r.written ? r.object : undefined;
}
