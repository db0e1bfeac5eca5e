// A new user's first Releases, with convoy-controller-manager running against a real kube-apiserver:
// the smallest documented Release (examples/resources/release-inline.yaml, no namespace on its
// ConfigMap) applies into the Release's namespace and kubectl get shows READY, ROLLOUT, a short
// REVISION and a MESSAGE; an emptied render and a zero deadline are warned about (status.message and a
// Warning Event); an unknown kind asks whether its CRD is installed, and such a Release that never
// applied is Healthy=Unknown/Pending (the observer runs too).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { API_VERSION } from '../../src/api/constants.ts';
import type { Release } from '../../src/api/types.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { type CrdCluster, startCrdCluster } from '../support/cluster.ts';
import {
  type ManagerProcess,
  type ObserverProcess,
  startControllerManager,
  startObserver,
  wakeupsTo,
} from '../support/processes.ts';
import { isReady, readyReason, waitForReady } from '../support/release.ts';
import { waitFor } from '../support/wait.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NS = 'first';

let cluster: CrdCluster | undefined;
let client: KubeClient;
let manager: ManagerProcess | undefined;
let observer: ObserverProcess | undefined;

before(async () => {
  cluster = await startCrdCluster({ namespaces: ['convoy-system', NS], scratch: 'convoy-first-e2e-' });
  client = cluster.client;
  manager = await startControllerManager({
    kubeconfigPath: cluster.cp.kubeconfigPath,
    identity: 'first',
    gitCacheDir: join(cluster.work, 'git-cache'),
  });
  observer = await startObserver({ kubeconfigPath: cluster.cp.kubeconfigPath, wakeups: wakeupsTo(manager) });
});

after(async () => {
  await observer?.stop();
  await manager?.stop();
  await cluster?.stop();
});

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

test('failurePolicy.deadline 0 is warned about: a Warning Event ZeroDeadline', async () => {
  await client.create(
    inline('no-deadline', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nd}\n', {
      healthAssessment: {},
      failurePolicy: { deadline: '0', rollback: 'Never' },
    }),
  );
  const ev = await warningEvent('no-deadline', 'ZeroDeadline');
  assert.match(ev.message ?? '', /failurePolicy.deadline is 0/);
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
