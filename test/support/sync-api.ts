// Shared checks of the sync API e2e tests (direct and through the aggregation layer): that an observer's
// wake-ups for a Release reached the controller-manager's HTTP API and were all served, and that
// sync-requested-at was written by the API itself.
import assert from 'node:assert/strict';
import { ANNOTATION_SYNC_REQUESTED_AT } from '../../src/api/constants.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { type ManagerProcess, type ObserverProcess, tailLogs } from './processes.ts';
import { annotationOwners, getInventory, getRelease } from './release.ts';
import { waitFor } from './wait.ts';

export const SYNCS = 'convoy_health_sync_requests_total';
export const SYNC_FAILURES = 'convoy_health_sync_request_failures_total';

/**
 * Waits until every object of the Release is recorded (`entries` of them) and Healthy, then until the
 * API has served a POST /sync and the observer has counted exactly what the API served; none failed.
 * Nothing else posts to the API, so every wake-up the observer counts is one the API answered 200.
 */
export async function assertWakeupsServed(
  client: KubeClient,
  ns: string,
  name: string,
  entries: number,
  manager: ManagerProcess,
  observer: ObserverProcess,
): Promise<void> {
  const fail = (err: Error) => assert.fail(`${err.message}\n${tailLogs(manager, observer)}`);
  await waitFor(
    `all ${entries} objects recorded and Healthy`,
    async () => {
      const inv = await getInventory(client, ns, name);
      return inv?.entries?.length === entries && inv.entries.every((e) => e.state === 'Healthy');
    },
    { timeoutMs: 60_000 },
  ).catch(fail);
  const served = await waitFor('a POST /sync served with 200', async () => {
    const n = await manager.apiRequests('sync', 200);
    return n >= 1 && n;
  }).catch(fail);
  await waitFor('the observer counted what the API served', async () => {
    const sent = await observer.metric(SYNCS);
    return sent >= served && sent === (await manager.apiRequests('sync', 200));
  }).catch(fail);
  assert.equal(await observer.metric(SYNC_FAILURES), 0, tailLogs(manager, observer));
}

/** sync-requested-at is set, written by the API (Server-Side Apply as convoy-api), not patched by the observer. */
export async function assertSyncRequestedByApi(client: KubeClient, ns: string, name: string): Promise<void> {
  const r = await getRelease(client, ns, name);
  assert.ok(r?.metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_AT], 'sync-requested-at is set');
  assert.deepEqual(
    annotationOwners(r, ANNOTATION_SYNC_REQUESTED_AT),
    [{ manager: 'convoy-api', operation: 'Apply' }],
    'written by the API (Server-Side Apply as convoy-api), not patched by the observer',
  );
}
