// A new user's first Releases, with convoy-controller-manager running against a real kube-apiserver:
// the smallest documented Release (examples/resources/release-inline.yaml, no namespace on its
// ConfigMap) applies into the Release's namespace and kubectl get shows READY, ROLLOUT, a short
// REVISION and a MESSAGE; an emptied render is warned about (status.message and a Warning Event), a
// zero rollout deadline refused by the API server naming the field; an unknown kind asks whether its CRD is installed, and such a Release that never
// applied is Healthy=Unknown/Pending (the observer runs too), and `convoy watch` ends on it at once
// without calling it Stalled. The CLI on the same system: a suspended Release is not applied until
// resumed, history lists the failed attempt, and `convoy logs` prints a hook
// Job's pod log through the API server (kwok runs no kubelet: a stand-in kubelet endpoint serves the
// text; everything else — the Job, its pod, the node, the log subresource — is real).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { API_VERSION } from '../../src/api/constants.ts';
import type { Release } from '../../src/api/types.ts';
import { runConvoy } from '../../src/cli/testsupport.ts';
import { KubeApiError } from '../../src/kube/errors.ts';
import { makeTestCa } from '../../src/server/testsupport.ts';
import { startClusterManager, useCrdCluster } from '../support/cluster.ts';
import { hookJob } from '../support/hooks.ts';
import { type ManagerProcess, type ObserverProcess, startObserver, wakeupsTo } from '../support/processes.ts';
import {
  cm,
  getInventory,
  isReady,
  mergePatch,
  readyReason,
  releaseRef,
  waitForReady,
} from '../support/release.ts';
import { waitFor } from '../support/wait.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NS = 'first';

let manager: ManagerProcess | undefined;
let observer: ObserverProcess | undefined;
// with workloads (controllers, scheduler, one kwok node): a Deployment's pods and a hook Job run
const { cp, client } = useCrdCluster(
  { namespaces: ['convoy-system', NS], scratch: 'convoy-first-e2e-', workloads: true, nodes: 1 },
  {
    setUp: async (cluster) => {
      manager = await startClusterManager(cluster, 'first');
      observer = await startObserver({ kubeconfigPath: cp.kubeconfigPath, wakeups: wakeupsTo(manager) });
    },
    tearDown: async () => {
      await observer?.stop();
      await manager?.stop();
    },
  },
);

const inline = (name: string, manifests: string, spec: Record<string, unknown> = {}): Release => ({
  apiVersion: API_VERSION,
  kind: 'Release',
  metadata: { name, namespace: NS },
  spec: { source: { inline: { manifests } }, ...spec },
});

async function warningEvent(name: string, reason: string) {
  return waitFor(
    `a Warning Event ${reason} for Release ${NS}/${name}`,
    async () => {
      const events = await client.list<{ type?: string; reason?: string; message?: string }>(
        { apiVersion: 'v1', kind: 'Event', namespace: NS },
        { fieldSelector: `involvedObject.name=${name}` },
      );
      return events.find((e) => e.type === 'Warning' && e.reason === reason) ?? false;
    },
    { timeoutMs: 30_000 },
  );
}

test('the smallest documented Release applies into its namespace; kubectl get shows READY, a short REVISION, a MESSAGE', async () => {
  const release = parse(
    await readFile(join(ROOT, 'examples/resources/release-inline.yaml'), 'utf8'),
  ) as Release;
  await client.create({ ...release, metadata: { ...release.metadata, namespace: NS } });
  const ready = await waitForReady(client, NS, 'hello', isReady, 'Ready');
  assert.ok(
    await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'hello' }),
    'the ConfigMap without a namespace landed in the Release namespace',
  );
  assert.match(ready.status?.revision ?? '', /^inline:[0-9a-f]{12}$/);
  assert.match(ready.status?.message ?? '', /^applied revision inline:/);

  const table = await client.request<{
    columnDefinitions: { name: string; priority: number }[];
    rows: { cells: unknown[] }[];
  }>({
    method: 'GET',
    path: `/apis/${API_VERSION}/namespaces/${NS}/releases/hello`,
    accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
  });
  const names = table.columnDefinitions.map((c) => c.name);
  const cell = (col: string) => table.rows[0]?.cells[names.indexOf(col)];
  assert.equal(cell('Ready'), 'True');
  assert.equal(cell('Revision'), ready.status?.revision);
  assert.equal(cell('Message'), ready.status?.message);
});

test('an emptied render is warned about: first in status.message, and a Warning Event EmptyRender', async () => {
  await client.create(inline('emptied', '# every object was removed\n'));
  const r = await waitForReady(client, NS, 'emptied', isReady, 'Ready');
  assert.match(r.status?.message ?? '', /^Warning: the render has no objects: every object convoy applied/);
  await warningEvent('emptied', 'EmptyRender');
});

test('failurePolicy.deadline 0 is refused by the API server, naming the field; nothing is created', async () => {
  const err = await client
    .create(
      inline('no-deadline', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nd}\n', {
        healthAssessment: {},
        failurePolicy: { deadline: '0', rollback: 'Never' },
      }),
    )
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.ok(err instanceof KubeApiError, 'a Release with a zero rollout deadline was accepted');
  assert.equal(err.code, 422);
  assert.match(
    err.apiMessage,
    /spec\.failurePolicy\.deadline: Invalid value: .*must be a duration greater than 0/,
  );
  const stored = await client.get<Release>({
    apiVersion: API_VERSION,
    kind: 'Release',
    namespace: NS,
    name: 'no-deadline',
  });
  assert.equal(stored, undefined);
});

test('an unknown kind fails the dry run asking whether its CRD is installed; it is not Healthy', async () => {
  await client.create(
    inline('widget', 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n', {
      healthAssessment: {},
    }),
  );
  const r = await waitForReady(client, NS, 'widget', readyReason('DryRunFailed'), 'DryRunFailed');
  const ready = r.status?.conditions?.find((c) => c.type === 'Ready');
  assert.match(ready?.message ?? '', /no such kind Widget in example\.com\/v1: is its CRD installed\?/);
  assert.doesNotMatch(ready?.message ?? '', /404 page not found/);
  assert.match(r.status?.message ?? '', /^DryRunFailed: /);
  // The observer has assessed it: nothing was ever applied, so it is Pending, not "0 objects healthy".
  const healthy = await waitForReady(
    client,
    NS,
    'widget',
    (x) => x.status?.conditions?.some((c) => c.type === 'Healthy') === true,
    'the observer wrote Healthy',
  );
  const h = healthy.status?.conditions?.find((c) => c.type === 'Healthy');
  assert.deepEqual([h?.status, h?.reason, h?.message], ['Unknown', 'Pending', 'no render applied yet']);
});

const convoy = (...args: string[]) => runConvoy([...args, '-n', NS, '--kubeconfig', cp.kubeconfigPath]);

test('a client-side DryRunFailed is not Stalled: watch ends at once with exit 1 and says why; history lists it', async () => {
  // `widget` (an unknown kind, found out by convoy's discovery before any request) from the test above
  const r = await waitForReady(client, NS, 'widget', readyReason('DryRunFailed'), 'DryRunFailed');
  assert.equal(r.status?.conditions?.find((c) => c.type === 'Stalled')?.status, 'False');
  const watch = await convoy('watch', 'widget');
  assert.equal(watch.code, 1, watch.stdout + watch.stderr);
  assert.match(
    watch.stdout,
    /^needs attention: Ready is False \(DryRunFailed\): dry run failed: .*no such kind Widget/m,
  );
  assert.doesNotMatch(watch.stdout + watch.stderr, /Stalled|a retry cannot fix this/);
  const history = await convoy('history', 'widget');
  assert.equal(history.code, 0, history.stderr);
  assert.match(history.stdout, /^RENDER +REVISION +APPLIED +RESULT +STORED +TRIGGERED BY +NOTES$/m);
  assert.match(
    history.stdout,
    /^sha256:[0-9a-f]{12} +inline:[0-9a-f]{12} +not applied +Failed \(DryRunFailed\) +(?:yes|no) +\S.* +\S+ ago: dry run failed: .*no such kind Widget/m,
  );

  // Fixed: the render that never applied stays in the record after the one that did.
  const bad = r.status?.currentRender?.renderRef ?? '';
  await mergePatch(client, releaseRef(NS, 'widget'), {
    spec: { source: { inline: { manifests: cm('widget-cfg', { v: '1' }) } } },
  });
  const fixed = await waitForReady(
    client,
    NS,
    'widget',
    (x) => isReady(x) && x.status?.lastSuccessful?.renderRef !== undefined,
    'Ready with the fixed source',
  );
  assert.deepEqual(
    fixed.status?.history?.map((e) => [e.renderRef === bad, e.appliedAt === undefined, e.result, e.reason]),
    [
      [true, true, 'Failed', 'DryRunFailed'],
      [false, false, undefined, undefined],
    ],
  );
  const after = await convoy('history', 'widget');
  assert.equal(after.code, 0, after.stderr);
  assert.match(
    after.stdout,
    new RegExp(
      `^${bad.slice(0, 19)} +inline:[0-9a-f]{12} +not applied \\(\\S+ ago\\) +Failed \\(DryRunFailed\\) +no +`,
      'm',
    ),
  );
});

test('a suspended Release applies nothing until resumed; suspended again, a new source waits; get and watch say so', async () => {
  const live = () =>
    client.get<{ data?: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: NS,
      name: 'paused-cfg',
    });
  await client.create(inline('paused', cm('paused-cfg', { v: '1' }), { suspend: true }));
  const held = await waitForReady(client, NS, 'paused', readyReason('Suspended'), 'Suspended');
  assert.equal(await live(), undefined, 'nothing applied while suspended');
  assert.match(held.status?.message ?? '', /spec\.suspend is true/);
  const get = await convoy('get', 'paused');
  assert.equal(get.code, 0, get.stderr);
  assert.match(get.stdout, /^paused +Suspended +\S+ +\S+ +.*spec\.suspend is true/m);
  const selected = await convoy('get', '--status-selector', 'suspended=true');
  assert.match(selected.stdout, /^paused /m);
  assert.doesNotMatch((await convoy('get', '--status-selector', 'suspended=false')).stdout, /^paused /m);
  const watch = await convoy('watch', 'paused');
  assert.equal(watch.code, 1, watch.stdout + watch.stderr);
  assert.match(watch.stdout, /suspended \(spec\.suspend\).*convoy resume paused/);

  const resumed = await convoy('resume', 'paused');
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /^resumed first\/paused/m);
  await waitForReady(client, NS, 'paused', isReady, 'Ready after resume');
  assert.equal((await live())?.data?.v, '1');

  const suspended = await convoy('suspend', 'paused');
  assert.equal(suspended.code, 0, suspended.stderr);
  assert.match(suspended.stdout, /^suspended first\/paused/m);
  const ref = releaseRef(NS, 'paused');
  await mergePatch(client, ref, {
    spec: { source: { inline: { manifests: cm('paused-cfg', { v: '2' }) } } },
  });
  // Once the controller has seen the new generation it stops at the suspend gate, and nothing else
  // would apply it later: v stays 1.
  await waitForReady(
    client,
    NS,
    'paused',
    (x) =>
      readyReason('Suspended')(x) && (x.status?.observedGeneration ?? 0) === (x.metadata.generation ?? -1),
    'the new generation observed, Suspended',
  );
  assert.equal((await live())?.data?.v, '1', 'a suspended Release is not synced');
  assert.equal((await convoy('resume', 'paused')).code, 0);
  await waitFor('v 2 applied after resume', async () => (await live())?.data?.v === '2', {
    timeoutMs: 60_000,
  });
});

test("convoy logs prints a hook Job's pod log, read through the API server's pods/log", async () => {
  const manifests = [stringify(hookJob('migrate', 'PreSync')), cm('hooked-cfg', { v: '1' })].join('---\n');
  await client.create(inline('hooked', manifests));
  await waitForReady(client, NS, 'hooked', isReady, 'Ready');
  const hook = (await getInventory(client, NS, 'hooked'))?.hooks?.find((h) => h.name === 'migrate');
  assert.ok(hook?.workloadName, 'the hook recorded its Job');
  const pods = await client.list<{ metadata: { name: string }; spec?: { nodeName?: string } }>(
    { apiVersion: 'v1', kind: 'Pod', namespace: NS },
    { labelSelector: `batch.kubernetes.io/job-name=${hook.workloadName}` },
  );
  const pod = pods[0];
  assert.ok(pod?.spec?.nodeName, 'the Job ran a pod on a node');

  // kwok simulates the node but serves no kubelet API: stand one up for this node.
  const ca = await makeTestCa('fake-kubelet-ca');
  const serving = await ca.issue('127.0.0.1', { extendedKeyUsage: 'serverAuth' });
  const asked: string[] = [];
  const kubelet = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    asked.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('migrated 3 tables\n');
  });
  await new Promise<void>((resolve) => kubelet.listen(0, '127.0.0.1', resolve));
  try {
    const port = (kubelet.address() as AddressInfo).port;
    await client.request({
      method: 'PATCH',
      path: `/api/v1/nodes/${pod.spec.nodeName}/status`,
      contentType: 'application/merge-patch+json',
      body: {
        status: {
          addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
          daemonEndpoints: { kubeletEndpoint: { Port: port } },
        },
      },
    });
    let last = '';
    const logs = await waitFor(
      'convoy logs to print the log',
      async () => {
        const r = await convoy('logs', 'hooked', 'migrate', '--tail', '5');
        last = `exit ${r.code}: ${r.stdout}${r.stderr}`;
        return r.code === 0 && r.stdout.includes('migrated 3 tables') ? r : false;
      },
      { timeoutMs: 30_000, intervalMs: 2000 },
    ).catch((e: Error) => {
      throw new Error(
        `${e.message}; convoy logs said ${last}; the kubelet was asked ${asked.join(', ') || 'nothing'}`,
      );
    });
    assert.match(
      logs.stdout,
      new RegExp(`^==> pod ${NS}/${pod.metadata.name} container main <==\nmigrated 3 tables$`, 'm'),
    );
    assert.ok(
      asked.some(
        (u) => u.startsWith(`/containerLogs/${NS}/${pod.metadata.name}/main?`) && u.includes('tailLines=5'),
      ),
      asked.join('\n'),
    );
    // a hook that does not exist is named with the ones that do
    const none = await convoy('logs', 'hooked', 'nope');
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^convoy: release first\/hooked has no hook "nope"; its hooks: migrate$/m);
  } finally {
    kubelet.close();
    await ca.dispose();
  }
});
