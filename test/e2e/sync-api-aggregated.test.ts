// The HTTP API behind the real aggregation layer, as installed: convoy-controller-manager (child process,
// --api-dev-self-signed, front-proxy settings read from the cluster) registered with an APIService;
// convoy-observer with its default --sync-mode=api and no URL, so its wake-ups can only reach the API
// through kube-apiserver; and the `convoy sync` CLI, which must find the aggregated API and use it.
// Last, the API part of the controller-manager (src/cmd/api-server.ts) in-process, with credentials that
// cannot read the front-proxy settings at first: it serves bearer tokens, and takes the settings (and
// proxied requests) once RBAC lets it read them.
import assert from 'node:assert/strict';
import { execFile as execFileCb } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { ANNOTATION_SYNC_REQUESTED_AT } from '../../src/api/constants.ts';
import { parseApiOptions } from '../../src/cmd/api-flags.ts';
import { startApi } from '../../src/cmd/api-server.ts';
import { installDefaultRules } from '../../src/observer/health/loop/index.ts';
import { newLogger } from '../../src/runtime/index.ts';
import { newApiMetrics } from '../../src/server/index.ts';
import { registerApiService } from '../../src/testenv/index.ts';
import { startAggregatedManager } from '../support/aggregated.ts';
import { useCrdCluster } from '../support/cluster.ts';
import { configMap, hookJob, manifests } from '../support/hooks.ts';
import { metricValue } from '../support/metrics.ts';
import { type ManagerProcess, type ObserverProcess, startObserver } from '../support/processes.ts';
import { serviceAccountToken } from '../support/rbac.ts';
import { annotationOwners, getRelease, isReady, releaseOf, waitForReady } from '../support/release.ts';
import { assertSyncRequestedByApi, assertWakeupsServed } from '../support/sync-api.ts';
import { DEFAULT_HEALTH, LEASE_NS } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const execFile = promisify(execFileCb);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NS = 'sync-agg';
let manager: ManagerProcess;
let observer: ObserverProcess;
const { cp, client } = useCrdCluster(
  {
    aggregation: true,
    workloads: true,
    nodes: 1,
    namespaces: [LEASE_NS, NS],
    scratch: 'convoy-sync-agg-e2e-',
  },
  {
    setUp: async (cluster) => {
      await installDefaultRules(cluster.client);
      manager = await startAggregatedManager(cluster, 'sync-agg');
      observer = await startObserver({
        kubeconfigPath: cluster.cp.kubeconfigPath,
        wakeups: { kind: 'aggregated' },
      });
    },
    tearDown: async () => {
      await observer?.stop();
      await manager?.stop();
    },
  },
);

test('the controller-manager took the front-proxy settings from the cluster and its own certificate', () => {
  assert.match(
    manager.log(),
    /"tls":"devSelfSigned"[^\n]*"requestHeader":"cluster"[^\n]*HTTP API serving/,
    'served with requestheader authentication from the first start',
  );
  assert.match(manager.api?.caPem ?? '', /^-----BEGIN CERTIFICATE-----/);
});

test('the observer wakes the controller through kube-apiserver: POST /sync proxied to the API', async () => {
  // The PostSync hook finishing is the edge only a /sync carries (the controller does not watch hook states).
  const web = releaseOf(NS, 'web', {
    source: {
      inline: {
        manifests: manifests([
          configMap('first', 0, { k: 'v' }),
          configMap('second', 1, { k: 'v' }),
          hookJob('smoke', 'PostSync'),
        ]),
      },
    },
    render: { targetNamespace: NS },
    healthAssessment: DEFAULT_HEALTH,
  });
  await client.create(web);
  // The observer has no URL of the API: whatever the API served came through the aggregation layer.
  await assertWakeupsServed(client, NS, 'web', 2, manager, observer);
  await assertSyncRequestedByApi(client, NS, 'web');
  // The wake-up reached the controller: it reconciled the Release to the end of its waves.
  await waitForReady(client, NS, 'web', isReady, 'Ready', 30_000);
});

test('`convoy sync` goes through the aggregated API (no fallback note) and sets sync-requested-at', async () => {
  const before = (await getRelease(client, NS, 'web'))?.metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_AT];
  const servedBefore = await manager.apiRequests('sync', 200);
  const { stdout, stderr } = await execFile(
    process.execPath,
    ['src/cmd/convoy.ts', 'sync', 'web', '-n', NS, '--kubeconfig', cp.kubeconfigPath],
    { cwd: ROOT },
  );
  assert.doesNotMatch(stderr, /note:|not registered|directly/, 'no fallback to writing the annotations');
  const m = /^sync requested for sync-agg\/web at (\S+) \(through the convoy API\)$/m.exec(stdout);
  assert.ok(m, `stdout: ${stdout}\nstderr: ${stderr}`);
  const r = await getRelease(client, NS, 'web');
  const at = r?.metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_AT];
  // At least the time the API answered with (an observer wake-up may follow it).
  assert.ok((at ?? '') >= (m[1] ?? ''), `${at} is not before ${m[1]}`);
  assert.ok((m[1] ?? '') > (before ?? ''), 'sync-requested-at moved forward');
  assert.deepEqual(annotationOwners(r, ANNOTATION_SYNC_REQUESTED_AT), [
    { manager: 'convoy-api', operation: 'Apply' },
  ]);
  assert.ok((await manager.apiRequests('sync', 200)) > servedBefore, 'the API served it');
});

/** A kubeconfig for a new ServiceAccount of LEASE_NS, with a token from the TokenRequest API. */
async function serviceAccountKubeConfig(name: string): Promise<KubeConfig> {
  await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: LEASE_NS } });
  const token = await serviceAccountToken(client, LEASE_NS, name);
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'cp', server: cp.server, caData: Buffer.from(cp.caPem).toString('base64') }],
    users: [{ name, token }],
    contexts: [{ name, cluster: 'cp', user: name }],
    currentContext: name,
  });
  return kc;
}

function bind(
  kind: 'ClusterRoleBinding' | 'RoleBinding',
  name: string,
  role: string,
  sa: string,
  ns?: string,
) {
  return client.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata: { name, ...(ns === undefined ? {} : { namespace: ns }) },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: kind === 'RoleBinding' ? 'Role' : 'ClusterRole',
      name: role,
    },
    subjects: [{ kind: 'ServiceAccount', name: sa, namespace: LEASE_NS }],
  } as never);
}

test('front-proxy settings readable only later: bearer tokens first, then a restart that accepts proxied requests', async () => {
  const sa = 'late-api';
  const kc = await serviceAccountKubeConfig(sa);
  // What the API needs for its own calls, but not yet the ConfigMap in kube-system.
  await bind('ClusterRoleBinding', `${sa}:auth-delegator`, 'system:auth-delegator', sa);
  await client.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: sa },
    rules: [{ apiGroups: ['convoy.kumodo.io'], resources: ['releases'], verbs: ['get', 'patch'] }],
  } as never);
  await bind('ClusterRoleBinding', sa, sa, sa);

  const lines: string[] = [];
  const log = newLogger('late-api', { write: (l: string) => void lines.push(l) }, 'debug');
  const registry = new Registry();
  // Started as the controller-manager starts it from these flags (requestheader from the cluster).
  const serve = parseApiOptions(
    ['--api-bind-address=127.0.0.1:0', '--api-dev-self-signed', '--api-auth-cache-ttl=0s'],
    {},
  );
  assert.ok(serve.kind === 'serve');
  const api = await startApi(serve, {
    kubeConfig: kc,
    log,
    metrics: newApiMetrics(registry),
    retry: { minMs: 200, maxMs: 1000 },
  });
  const text = () => lines.join('');
  try {
    assert.match(text(), /"requestHeader":"waiting for the cluster"[^\n]*HTTP API serving/);
    assert.match(text(), /forbidden/i, 'the first read was refused by RBAC');
    const port = api.port;
    const cert = api.cert;

    await bind(
      'RoleBinding',
      `${sa}:ext-auth-reader`,
      'extension-apiserver-authentication-reader',
      sa,
      'kube-system',
    );
    await waitFor('the API restarted with the front-proxy settings', async () =>
      /"requestHeader":"cluster"[^\n]*HTTP API restarted/.test(text()),
    ).catch((err: Error) => assert.fail(`${err.message}\n${text()}`));
    assert.equal(api.port, port, 'same port');
    assert.equal(api.cert, cert, 'same certificate: an APIService registered before keeps trusting it');

    // Point the APIService at it: kube-apiserver's proxied request is now accepted.
    await registerApiService(cp.kubeConfig, { port, caPem: cert });
    await waitFor('a POST /sync through kube-apiserver served by the restarted API', async () => {
      await client.request({
        method: 'POST',
        path: `/apis/api.convoy.kumodo.io/v1alpha1/namespaces/${NS}/releases/web/sync`,
        body: {},
      });
      return (
        metricValue(await registry.metrics(), 'convoy_api_requests_total', { route: 'sync', code: '200' }) >=
        1
      );
    }).catch((err: Error) => assert.fail(`${err.message}\n${text()}`));
  } finally {
    await api.stop();
    // Back to the controller-manager's API for anything after this test.
    if (manager.api)
      await registerApiService(cp.kubeConfig, { port: manager.api.port, caPem: manager.api.caPem });
  }
});
