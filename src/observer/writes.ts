// The observer's two kinds of write, shared by the health, drift and hook loops: its own fields of a
// ReleaseInventory and its own fields of a Release's status, each under the loop's field manager.
import { API_VERSION, type FieldManager } from '../api/constants.ts';
import type { Release, ReleaseInventory } from '../api/types.ts';
import { applyObject, preconditionsOf } from '../kube/apply.ts';
import type { KubeClient } from '../kube/client.ts';
import { writeStatus } from '../kube/status.ts';

/**
 * SSA of entries and/or hooks (list-map items carrying their keys and this manager's fields). The cached
 * uid and resourceVersion go along as preconditions: a stale cache can never re-create an inventory the
 * controller deleted, and a changed one answers 409, which the caller turns into a requeue.
 */
export function applyInventoryFields(
  client: KubeClient,
  inventory: ReleaseInventory,
  fieldManager: FieldManager,
  fields: { readonly entries?: readonly object[]; readonly hooks?: readonly object[] },
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
    ...preconditionsOf(inventory),
  });
}

/** SSA of this manager's fields of the Release status; the stored Release, or undefined when unchanged. */
export async function applyReleaseStatus(
  client: KubeClient,
  release: Release,
  fieldManager: FieldManager,
  body: object,
): Promise<Release | undefined> {
  const r = await writeStatus<Release>(
    client,
    { kind: 'Release', namespace: release.metadata.namespace, name: release.metadata.name ?? '' },
    body as Record<string, unknown>,
    { fieldManager },
  );
  return r.written ? r.object : undefined;
}
