// The Secret-backed render store against a real kube-apiserver: round trips, chunking of a
// render far over the 1 MiB Secret limit, idempotent and self-repairing puts, corruption
// detection, gc and deleteAll, all through src/kube's KubeClient.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { KubeObject, ObjectMeta } from '../../src/api/types.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { renderRef as renderRefOf } from '../../src/render/canonical.ts';
import { RenderStoreCorruptError, RenderStoreError } from '../../src/store/errors.ts';
import { LABEL_RELEASE, releaseLabelValue } from '../../src/store/layout.ts';
import { SecretRenderStore } from '../../src/store/secrets.ts';
import type { Render } from '../../src/store/types.ts';
import { type ControlPlane, startControlPlane } from '../../src/testenv/index.ts';
import { apiserverMetric } from '../support/metrics.ts';

let cp: ControlPlane;
let client: KubeClient;
let store: SecretRenderStore;
const NS = 'store-e2e';

type Secret = { metadata: ObjectMeta; type?: string; data?: Record<string, string> };
const secretRef = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', namespace: NS, name });

before(async () => {
  cp = await startControlPlane({});
  client = new KubeClient(cp.kubeConfig);
  store = new SecretRenderStore(client);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
});

after(async () => {
  await cp?.stop();
});

function cm(name: string, data: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data };
}

function smallRender(tag: string): Render {
  return {
    hooks: [
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          name: `migrate-${tag}`,
          namespace: NS,
          annotations: { 'convoy.kumodo.io/hook': 'PreSync' },
        },
        spec: {
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'm', image: 'busybox' }] } },
        },
      },
    ],
    objects: [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `s-${tag}`, namespace: NS },
        stringData: { p: 'w' },
      },
      cm(`cfg-${tag}`, { tag, unicode: 'ü→✓' }),
    ],
  };
}

/** Over 2 MiB of random (incompressible) bytes: about three 900 KiB chunks after gzip. */
function bigRender(): Render {
  return {
    hooks: [],
    objects: [cm('big', { blob: randomBytes(2 * 1024 * 1024 + 300_000).toString('base64') })],
  };
}

async function secretsOf(release: string): Promise<Secret[]> {
  const items = await client.list<Secret>(
    { apiVersion: 'v1', kind: 'Secret', namespace: NS },
    { labelSelector: `${LABEL_RELEASE}=${releaseLabelValue(NS, release)}` },
  );
  return items.sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
}

test('put/get round trip, with owner and annotations', async () => {
  const owner = await client.create<KubeObject>({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'owner', namespace: NS },
  });
  const render = smallRender('a');
  const ref = renderRefOf(render);
  assert.equal(await store.get(NS, 'rt', ref), undefined);
  await store.put(NS, 'rt', ref, render, {
    revision: 'main@abc',
    owner: { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata?.uid ?? '' },
  });
  assert.deepEqual(await store.get(NS, 'rt', ref), render);
  const secrets = await secretsOf('rt');
  assert.equal(secrets.length, 1);
  const s = secrets[0] as Secret;
  assert.equal(s.type, 'convoy.kumodo.io/render');
  assert.equal(s.metadata?.name, `convoy-render-rt-${ref.slice(7, 23)}-0`);
  assert.equal(s.metadata?.annotations?.['convoy.kumodo.io/render-ref'], ref);
  assert.equal(s.metadata?.annotations?.['convoy.kumodo.io/revision'], 'main@abc');
  assert.equal(s.metadata?.labels?.['convoy.kumodo.io/render-ref'], ref.slice(7, 70));
  assert.deepEqual(
    s.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.uid]),
    [['ConfigMap', 'owner', owner.metadata?.uid]],
  );
  const [meta] = await store.list(NS, 'rt');
  assert.equal(meta?.renderRef, ref);
  assert.equal(meta?.revision, 'main@abc');
  assert.equal(meta?.complete, true);
  assert.ok(meta?.storedAt && !Number.isNaN(Date.parse(meta.storedAt)));
});

test('put refuses a render stored under a ref it does not hash to', async () => {
  const ref = renderRefOf(smallRender('x'));
  await assert.rejects(store.put(NS, 'bad', ref, smallRender('y')), RenderStoreError);
  assert.deepEqual(await secretsOf('bad'), []);
});

test('a render over 2 MiB of incompressible data is chunked and round-trips', async () => {
  const render = bigRender();
  const ref = renderRefOf(render);
  await store.put(NS, 'big', ref, render);
  const secrets = await secretsOf('big');
  assert.ok(secrets.length >= 3, `expected >= 3 chunks, got ${secrets.length}`);
  for (const s of secrets) {
    assert.ok(Buffer.from(s.data?.chunk ?? '', 'base64').length <= 900 * 1024);
  }
  assert.deepEqual(await store.get(NS, 'big', ref), render);
  const [meta] = await store.list(NS, 'big');
  assert.equal(meta?.chunkCount, secrets.length);
});

test('put is idempotent and completes a half-written earlier attempt', async () => {
  const render = bigRender();
  const ref = renderRefOf(render);
  await store.put(NS, 'idem', ref, render);
  const first = await secretsOf('idem');
  await store.put(NS, 'idem', ref, render);
  const second = await secretsOf('idem');
  assert.deepEqual(
    second.map((s) => s.metadata?.resourceVersion),
    first.map((s) => s.metadata?.resourceVersion),
    'a second put writes nothing',
  );

  // A writer that died before its commit (chunk 0) leaves a render that reads as absent.
  assert.ok(await client.delete(secretRef(first[0]?.metadata?.name ?? '')));
  assert.ok(await client.delete(secretRef(first[2]?.metadata?.name ?? '')));
  assert.equal(await store.get(NS, 'idem', ref), undefined);
  assert.equal((await store.list(NS, 'idem'))[0]?.complete, false);
  await store.put(NS, 'idem', ref, render);
  assert.deepEqual(await store.get(NS, 'idem', ref), render);
  const third = await secretsOf('idem');
  assert.equal(third.length, first.length);
  assert.equal(
    third[1]?.metadata?.resourceVersion,
    first[1]?.metadata?.resourceVersion,
    'an intact chunk is not rewritten',
  );

  // Losing a chunk after the commit is corruption until a put repairs it.
  assert.ok(await client.delete(secretRef(first[1]?.metadata?.name ?? '')));
  await assert.rejects(store.get(NS, 'idem', ref), /chunk 1 of \d+ is missing/);
  await store.put(NS, 'idem', ref, render);
  assert.deepEqual(await store.get(NS, 'idem', ref), render);
});

/** kube-apiserver's count of LISTs of Secrets so far. */
const secretLists = () =>
  apiserverMetric(client, 'apiserver_request_total', { verb: 'LIST', resource: 'secrets' });

test('a put with expectNew creates a new render without listing; one stored or half-written ends as a listing put does', async () => {
  const render = bigRender();
  const ref = renderRefOf(render);
  const listsBefore = await secretLists();
  await store.put(NS, 'fresh', ref, render, { expectNew: true });
  assert.equal((await secretLists()) - listsBefore, 0, 'a new render is stored by creates alone');
  assert.deepEqual(await store.get(NS, 'fresh', ref), render);
  const first = await secretsOf('fresh');
  assert.ok(first.length > 2, 'several chunks');

  // Stored already (the caller's history was wrong): the first create finds it, the listing put writes nothing.
  await store.put(NS, 'fresh', ref, render, { expectNew: true });
  assert.deepEqual(
    (await secretsOf('fresh')).map((s) => s.metadata?.resourceVersion),
    first.map((s) => s.metadata?.resourceVersion),
    'nothing rewritten',
  );

  // Half-written: no commit (chunk 0) and a chunk missing; the put completes it and keeps the intact chunk.
  assert.ok(await client.delete(secretRef(first[0]?.metadata?.name ?? '')));
  assert.ok(await client.delete(secretRef(first[2]?.metadata?.name ?? '')));
  await store.put(NS, 'fresh', ref, render, { expectNew: true });
  assert.deepEqual(await store.get(NS, 'fresh', ref), render);
  const third = await secretsOf('fresh');
  assert.equal(third.length, first.length);
  assert.equal(third[1]?.metadata?.resourceVersion, first[1]?.metadata?.resourceVersion, 'intact chunk kept');
});

test('corruption of a stored chunk is detected, and a put repairs it', async () => {
  const render = bigRender();
  const ref = renderRefOf(render);
  await store.put(NS, 'corrupt', ref, render);
  const [, victim] = await secretsOf('corrupt');
  assert.ok(victim?.data?.chunk);
  const bytes = Buffer.from(victim.data.chunk, 'base64');
  bytes[100] = (bytes[100] ?? 0) ^ 0xff;
  const damaged: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: victim.metadata,
    type: victim.type,
    data: { chunk: bytes.toString('base64') },
  };
  await client.replace(damaged);
  await assert.rejects(store.get(NS, 'corrupt', ref), RenderStoreCorruptError);
  await store.put(NS, 'corrupt', ref, render);
  assert.deepEqual(await store.get(NS, 'corrupt', ref), render);
});

test('gc deletes exactly the renders outside the keep set', async () => {
  const renders = ['1', '2', '3', '4'].map(smallRender);
  const refs = renders.map(renderRefOf);
  for (const [i, r] of renders.entries()) await store.put(NS, 'gc', refs[i] as string, r);
  await store.put(NS, 'gc-other', refs[1] as string, renders[1] as Render);
  const [r1, r2, r3, r4] = refs as [string, string, string, string];
  const notStored = renderRefOf(smallRender('never'));
  const deleted = await store.gc(NS, 'gc', new Set([r1, r3, notStored]));
  assert.deepEqual(deleted, [r2, r4].sort());
  assert.deepEqual((await store.list(NS, 'gc')).map((m) => m.renderRef).sort(), [r1, r3].sort());
  assert.equal(await store.get(NS, 'gc', r2), undefined);
  assert.deepEqual(await store.get(NS, 'gc', r3), renders[2]);
  assert.deepEqual(await store.get(NS, 'gc-other', r2), renders[1], 'another release is untouched');
  assert.deepEqual(await store.gc(NS, 'gc', new Set([r1, r3])), [], 'a second gc deletes nothing');
  await store.delete(NS, 'gc', r1);
  assert.deepEqual(
    (await store.list(NS, 'gc')).map((m) => m.renderRef),
    [r3],
  );
});

test('deleteAll removes every Secret of the release and only those', async () => {
  const big = bigRender();
  await store.put(NS, 'all', renderRefOf(big), big);
  await store.put(NS, 'all', renderRefOf(smallRender('z')), smallRender('z'));
  await store.put(NS, 'all-keep', renderRefOf(smallRender('z')), smallRender('z'));
  assert.ok((await secretsOf('all')).length >= 4);
  await store.deleteAll(NS, 'all');
  assert.deepEqual(await secretsOf('all'), []);
  assert.deepEqual(await store.list(NS, 'all'), []);
  assert.equal((await store.list(NS, 'all-keep')).length, 1);
});

test('a render of more chunks than one list page round-trips, lists and is collected whole', async () => {
  const small = new SecretRenderStore(client, { chunkBytes: 1024 });
  const render: Render = {
    hooks: [],
    objects: [cm('paged', { blob: randomBytes(60_000).toString('base64') })],
  };
  const ref = renderRefOf(render);
  await small.put(NS, 'paged', ref, render);
  const secrets = await secretsOf('paged');
  assert.ok(secrets.length > 50, `expected more chunks than a page (50), got ${secrets.length}`);
  assert.deepEqual(await small.get(NS, 'paged', ref), render);
  const [meta] = await small.list(NS, 'paged');
  assert.equal(meta?.chunkCount, secrets.length);
  assert.equal(meta?.complete, true);
  const bytes = secrets.reduce((n, s) => n + Buffer.from(s.data?.chunk ?? '', 'base64').length, 0);
  assert.equal(meta?.storedBytes, bytes);
  assert.deepEqual(await small.gc(NS, 'paged', new Set()), [ref]);
  assert.deepEqual(await secretsOf('paged'), []);
});

test('list reports sizes of chunks written before their size was annotated', async () => {
  const render = bigRender();
  const ref = renderRefOf(render);
  await store.put(NS, 'old', ref, render);
  const [fresh] = await store.list(NS, 'old');
  const secrets = await secretsOf('old');
  const bytes = secrets.reduce((n, s) => n + Buffer.from(s.data?.chunk ?? '', 'base64').length, 0);
  assert.equal(fresh?.storedBytes, bytes);
  // What a store written before the annotation holds.
  for (const s of secrets) {
    const { 'convoy.kumodo.io/chunk-bytes': size, ...annotations } = s.metadata.annotations ?? {};
    assert.ok(size !== undefined);
    const older: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { ...s.metadata, annotations },
      type: s.type,
      data: s.data,
    };
    await client.replace(older);
  }
  assert.deepEqual(await store.list(NS, 'old'), [fresh]);
  assert.deepEqual(await store.get(NS, 'old', ref), render);
});

test('two stores putting the same render at once both succeed', async () => {
  const a = new SecretRenderStore(client, { chunkBytes: 4096 });
  const b = new SecretRenderStore(new KubeClient(cp.kubeConfig), { chunkBytes: 4096 });
  const render: Render = {
    hooks: [],
    objects: [cm('race', { blob: randomBytes(40_000).toString('base64') })],
  };
  const ref = renderRefOf(render);
  await Promise.all([a.put(NS, 'race', ref, render), b.put(NS, 'race', ref, render)]);
  assert.deepEqual(await a.get(NS, 'race', ref), render);
  assert.deepEqual(await b.get(NS, 'race', ref), render);
});
