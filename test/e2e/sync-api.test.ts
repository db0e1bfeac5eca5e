// The HTTP API in the running system, without the aggregation layer: convoy-controller-manager serves
// it (child process, self-signed certificate on a loopback port) and convoy-observer (child process,
// --sync-api-url/--sync-api-ca-file) sends its wake-ups there. What the API served is read from the
// controller-manager's convoy_api_requests_total; who wrote sync-requested-at from managedFields.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANNOTATION_SYNC_REQUESTED_AT } from '../../src/api/constants.ts';
import type { Release } from '../../src/api/types.ts';
import { installDefaultRules } from '../../src/observer/health/loop/index.ts';
import { TEST_LABEL_NEVER_READY } from '../../src/testenv/index.ts';
import { startClusterManager, useCrdCluster } from '../support/cluster.ts';
import { configMap, hookJob, inlineRelease, type Manifest } from '../support/hooks.ts';
import {
  type ManagerProcess,
  type ObserverProcess,
  startObserver,
  tailLogs,
  wakeupsTo,
} from '../support/processes.ts';
import { annotationOwners, getInventory, getRelease } from '../support/release.ts';
import { makeServingCert, type ServingCert } from '../support/serving-cert.ts';
import { assertSyncRequestedByApi, assertWakeupsServed, SYNC_FAILURES } from '../support/sync-api.ts';
import { createNamespace, DEFAULT_HEALTH, LEASE_NS } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

let cert: ServingCert;
let manager: ManagerProcess;
let observer: ObserverProcess;

const logs = () => tailLogs(manager, observer);

const cluster = useCrdCluster(
  { workloads: true, nodes: 1, namespaces: [LEASE_NS], scratch: 'convoy-sync-api-e2e-' },
  {
    setUp: async () => {
      await installDefaultRules(client);
      cert = await makeServingCert();
      manager = await startManager();
      observer = await startObserver({ kubeconfigPath: cp.kubeconfigPath, wakeups: wakeupsTo(manager) });
    },
    tearDown: async () => {
      await observer?.stop();
      await manager?.stop();
      await cert?.dispose();
    },
  },
);
const { cp, client } = cluster;

const startManager = (port = 0) =>
  startClusterManager(cluster, 'sync-api', { api: { kind: 'serve', tls: cert, port } });

const release = (ns: string, name: string, objects: readonly Manifest[]): Release =>
  inlineRelease(ns, name, objects, { syncPolicy: { interval: '2s' }, healthAssessment: DEFAULT_HEALTH });

test('a finished PostSync hook reaches the controller as a POST /sync its API served, applied as convoy-api', async () => {
  const ns = 'sync-api-waves';
  await createNamespace(client, ns);
  await client.create(
    release(ns, 'app', [
      configMap('first', 0, { k: 'v' }),
      configMap('second', 1, { k: 'v' }),
      hookJob('smoke', 'PostSync'),
    ]),
  );

  // Both waves applied and assessed healthy, then the hook ran: the controller does not watch hook states,
  // so the observer's /sync is what tells it (the waves' health reached it through the inventory watch).
  await assertWakeupsServed(client, ns, 'app', 2, manager, observer);
  assert.doesNotMatch(observer.log(), /sync request failed/);
  await assertSyncRequestedByApi(client, ns, 'app');
});

test('an unreachable API: the wake-up fails, is counted and retried, and goes out once the API is back', async () => {
  const ns = 'sync-api-outage';
  await createNamespace(client, ns);
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web', [TEST_LABEL_NEVER_READY]: 'true' } },
        spec: { containers: [{ name: 'main', image: 'registry.invalid/web:1' }] },
      },
    },
  };
  // A rollout that Failed (the deadline passed, no rollback) is not woken by its inventory's health: the
  // observer's /sync is then the only way the wave completing reaches the controller.
  await client.create(
    inlineRelease(ns, 'app', [deployment], {
      syncPolicy: { interval: '2s' },
      healthAssessment: DEFAULT_HEALTH,
      failurePolicy: { deadline: '2s', rollback: 'Never' },
    }),
  );
  const failed = await waitFor(
    'web assessed Progressing and the rollout Failed',
    async () => {
      const e = (await getInventory(client, ns, 'app'))?.entries?.[0];
      const r = await getRelease(client, ns, 'app');
      return e?.state === 'Progressing' && r?.status?.rollout?.state === 'Failed' && r;
    },
    { timeoutMs: 60_000 },
  ).catch((err: Error) => assert.fail(`${err.message}\n${logs()}`));
  const before = failed.metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_AT];
  const port = manager.api?.port ?? 0;
  const failuresBefore = await observer.metric(SYNC_FAILURES);
  const errorsBefore = await observer.metric('convoy_reconcile_errors_total', { controller: 'health' });

  await manager.stop();
  // The wave completes while nobody serves the API: a user fixes the pods (no controller runs to undo it).
  await client.request({
    method: 'PATCH',
    path: `/apis/apps/v1/namespaces/${ns}/deployments/web`,
    contentType: 'application/merge-patch+json',
    body: { spec: { template: { metadata: { labels: { [TEST_LABEL_NEVER_READY]: null } } } } },
  });
  await waitFor(
    'web Healthy',
    async () => (await getInventory(client, ns, 'app'))?.entries?.[0]?.state === 'Healthy',
    { timeoutMs: 60_000 },
  ).catch((err: Error) => assert.fail(`${err.message}\n${observer.log().slice(-4000)}`));
  await waitFor('the wake-up failed and was retried', async () => {
    const failures = await observer.metric(SYNC_FAILURES);
    return failures >= failuresBefore + 2 && failures;
  });
  assert.ok(
    (await observer.metric('convoy_reconcile_errors_total', { controller: 'health' })) >= errorsBefore + 2,
    'each failed wake-up fails the pass, so the queue retries it',
  );
  assert.match(observer.log(), /sync request failed; kept for the next pass/);
  assert.equal(
    (await getRelease(client, ns, 'app'))?.metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_AT],
    before,
    'no wake-up got through while the API was down',
  );

  // Back on the same port with the same certificate: the kept edge goes out.
  manager = await startManager(port);
  const after = await waitFor(
    'the kept wake-up served by the restarted API',
    async () => {
      const at = (await getRelease(client, ns, 'app'))?.metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_AT];
      return at !== before && (await manager.apiRequests('sync', 200)) >= 1 && at;
    },
    { timeoutMs: 60_000 },
  ).catch((err: Error) => assert.fail(`${err.message}\n${logs()}`));
  assert.ok(after > (before ?? ''), 'sync-requested-at moved forward');
  assert.deepEqual(annotationOwners(await getRelease(client, ns, 'app'), ANNOTATION_SYNC_REQUESTED_AT), [
    { manager: 'convoy-api', operation: 'Apply' },
  ]);
});
