// requestSync: how the health loop wakes the controller on an edge. POST /sync does not exist yet, so
// this sets what /sync sets — the sync-requested-at annotation — with a merge patch under convoy-api.
// Swap the body for the HTTP call once src/server serves /sync; callers do not change.
import { ANNOTATION_SYNC_REQUESTED_AT, API_VERSION, FIELD_MANAGERS } from '../../../api/constants.ts';
import type { Release } from '../../../api/types.ts';
import type { KubeClient } from '../../../kube/client.ts';

export async function requestSync(
  client: KubeClient,
  release: Release,
  now: Date = new Date(),
): Promise<void> {
  const path = await client.pathOf({
    apiVersion: API_VERSION,
    kind: 'Release',
    namespace: release.metadata.namespace,
    name: release.metadata.name ?? '',
  });
  await client.request({
    method: 'PATCH',
    path,
    contentType: 'application/merge-patch+json',
    // Milliseconds: two wake-ups within one second must still change the annotation.
    body: { metadata: { annotations: { [ANNOTATION_SYNC_REQUESTED_AT]: now.toISOString() } } },
    query: { fieldManager: FIELD_MANAGERS.api },
  });
}
