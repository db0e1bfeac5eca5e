// KubeClient's collection and update calls against a real kube-apiserver: paging with limit and
// continue, metadata-only lists (PartialObjectMetadataList: no bodies), replace guarded by
// resourceVersion, and the typed errors (AlreadyExists, Conflict, NotFound) callers branch on.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { KubeObject, ObjectMeta } from '../../src/api/types.ts';
import { KubeClient, type PartialObjectMetadata } from '../../src/kube/client.ts';
import { isAlreadyExists, isConflict, isNotFound } from '../../src/kube/errors.ts';
import { errorMessage } from '../../src/lib/errors.ts';
import { type ControlPlane, startControlPlane } from '../../src/testenv/index.ts';

let cp: ControlPlane;
let client: KubeClient;
const NS = 'kube-client-e2e';
const configMaps = { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS };

type ConfigMap = { apiVersion?: string; kind?: string; metadata: ObjectMeta; data?: Record<string, string> };

function cm(name: string, labels: Record<string, string>, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, labels }, data };
}

before(async () => {
  cp = await startControlPlane({});
  client = new KubeClient(cp.kubeConfig);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  for (let i = 0; i < 7; i++)
    await client.create(cm(`paged-${i}`, { set: 'paged' }, { big: 'x'.repeat(1000) }));
  await client.create(cm('other', { set: 'other' }));
});

after(async () => {
  await cp?.stop();
});

test('listPage pages a label-selected collection with limit and continue', async () => {
  const sizes: number[] = [];
  const names: string[] = [];
  let cont: string | undefined;
  do {
    const page = await client.listPage<ConfigMap>(configMaps, {
      labelSelector: 'set=paged',
      limit: 3,
      continue: cont,
    });
    sizes.push(page.items.length);
    names.push(...page.items.map((i) => i.metadata.name ?? ''));
    assert.ok(page.resourceVersion !== undefined && page.resourceVersion !== '');
    cont = page.continue;
  } while (cont !== undefined);
  assert.deepEqual(sizes, [3, 3, 1]);
  assert.deepEqual(
    names,
    Array.from({ length: 7 }, (_, i) => `paged-${i}`),
  );
  const all = await client.listAll<ConfigMap>(configMaps, { labelSelector: 'set=paged', limit: 2 });
  assert.deepEqual(
    all.map((i) => i.metadata.name),
    names,
  );
});

test('a metadata-only list carries labels and annotations but no bodies', async () => {
  const page = await client.listPage<PartialObjectMetadata & { data?: unknown }>(configMaps, {
    labelSelector: 'set=paged',
    metadataOnly: true,
  });
  assert.equal(page.items.length, 7);
  for (const item of page.items) {
    assert.equal(item.kind, 'PartialObjectMetadata');
    assert.equal(item.apiVersion, 'meta.k8s.io/v1');
    assert.equal(item.data, undefined);
    assert.equal(item.metadata.labels?.set, 'paged');
    assert.ok(item.metadata.resourceVersion);
  }
  const full = await client.listPage<ConfigMap>(configMaps, { labelSelector: 'set=paged' });
  assert.equal(full.items[0]?.data?.big?.length, 1000, 'without metadataOnly the bodies come along');
});

test('a field selector narrows a list (Secrets by type)', async () => {
  const secret = (name: string, type: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: NS, labels: { set: 'typed' } },
    type,
    stringData: { k: 'v' },
  });
  await client.create(secret('opaque', 'Opaque'));
  await client.create(secret('mine', 'example.com/mine'));
  const items = await client.listAll<PartialObjectMetadata>(
    { apiVersion: 'v1', kind: 'Secret', namespace: NS },
    { labelSelector: 'set=typed', fieldSelector: 'type=example.com/mine', limit: 1, metadataOnly: true },
  );
  assert.deepEqual(
    items.map((i) => i.metadata.name),
    ['mine'],
  );
});

test('replace honours resourceVersion; create, replace and get report the typed errors', async () => {
  const created = await client.create<ConfigMap>(cm('rv', { set: 'rv' }, { v: '1' }));
  await assert.rejects(client.create(cm('rv', { set: 'rv' })), (e: unknown) => isAlreadyExists(e));
  const v1 = created.metadata.resourceVersion;
  assert.ok(v1);
  const replaced = await client.replace<ConfigMap>({
    ...cm('rv', { set: 'rv' }, { v: '2' }),
    metadata: { ...created.metadata },
  });
  assert.equal(replaced.data?.v, '2');
  assert.notEqual(replaced.metadata.resourceVersion, v1);
  // A write based on the version before is refused, and nothing changes.
  await assert.rejects(
    client.replace({ ...cm('rv', { set: 'rv' }, { v: 'stale' }), metadata: { ...created.metadata } }),
    (e: unknown) => isConflict(e) && !isAlreadyExists(e),
  );
  assert.equal((await client.get<ConfigMap>({ ...configMaps, name: 'rv' }))?.data?.v, '2');
  // Without a resourceVersion it overwrites.
  await client.replace(cm('rv', { set: 'rv' }, { v: '3' }));
  assert.equal((await client.get<ConfigMap>({ ...configMaps, name: 'rv' }))?.data?.v, '3');
  await assert.rejects(client.replace(cm('absent', {})), (e: unknown) => isNotFound(e));
  assert.equal(await client.get({ ...configMaps, name: 'absent' }), undefined);
  assert.equal(await client.delete({ ...configMaps, name: 'rv' }), true);
  assert.equal(await client.delete({ ...configMaps, name: 'rv' }), false);
});

test('a kind the server does not serve is named, with a hint at the CRD (not "404 page not found")', async () => {
  for (const [apiVersion, kind] of [
    ['example.com/v1', 'Widget'],
    ['v1', 'ConfigMapp'],
  ] as const) {
    await assert.rejects(
      client.pathOf({ apiVersion, kind, namespace: 'default', name: 'x' }),
      (e: unknown) =>
        isNotFound(e) && errorMessage(e) === `no such kind ${kind} in ${apiVersion}: is its CRD installed?`,
      `${apiVersion} ${kind}`,
    );
  }
});
