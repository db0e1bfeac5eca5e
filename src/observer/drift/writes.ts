// The drift loop's writes, both Server-Side Apply under convoy-drift and both skipped when the cached
// object already holds the values: writeInventoryDrift (entries' drifted/driftMessage, with the cached
// uid and resourceVersion as preconditions, so a stale cache never re-creates an inventory the controller
// deleted and a changed one answers 409) and writeDrift (the Drifted condition and driftSummary).
import { API_VERSION, FIELD_MANAGERS } from '../../api/constants.ts';
import type { Release, ReleaseInventory } from '../../api/types.ts';
import { applyObject, preconditionsOf } from '../../kube/apply.ts';
import type { KubeClient } from '../../kube/client.ts';
import { writeStatus } from '../../kube/status.ts';
import {
  type DriftStatusBody,
  driftStatusUpToDate,
  type InventoryDriftItem,
  inventoryDriftChanged,
} from './plan.ts';

/** Returns the stored inventory when it wrote, undefined when there was nothing to write. */
export async function writeInventoryDrift(
  client: KubeClient,
  inventory: ReleaseInventory,
  items: readonly InventoryDriftItem[],
): Promise<ReleaseInventory | undefined> {
  if (!inventoryDriftChanged(inventory.entries ?? [], items)) return undefined;
  const body = {
    apiVersion: API_VERSION,
    kind: 'ReleaseInventory',
    metadata: { name: inventory.metadata.name, namespace: inventory.metadata.namespace },
    entries: items,
  };
  return applyObject(client, body as unknown as ReleaseInventory, {
    fieldManager: FIELD_MANAGERS.drift,
    force: true,
    ...preconditionsOf(inventory),
  });
}

/** Returns the stored Release when it wrote, undefined when the cached status was already up to date. */
export async function writeDrift(
  client: KubeClient,
  release: Release,
  body: DriftStatusBody,
): Promise<Release | undefined> {
  if (driftStatusUpToDate(release.status, body)) return undefined;
  const r = await writeStatus<Release>(
    client,
    { kind: 'Release', namespace: release.metadata.namespace, name: release.metadata.name ?? '' },
    body as unknown as Record<string, unknown>,
    { fieldManager: FIELD_MANAGERS.drift },
  );
  return r.written ? r.object : undefined;
}
