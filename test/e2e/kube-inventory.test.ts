// ReleaseInventory under several SSA field managers on the real apiserver (docs/design.md#field-ownership):
// each manager keeps its own fields of an entry; what a plain apply that drops an entry really does; convoy's
// explicit removal; and which precondition stops a stale apply from re-creating a deleted inventory.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_VERSION, FIELD_MANAGERS } from '../../src/api/constants.ts';
import type { InventoryEntry, ReleaseInventory } from '../../src/api/types.ts';
import { applyObject, existingOnly } from '../../src/kube/apply.ts';
import { isKubeError, KubeApiError } from '../../src/kube/errors.ts';
import { removalPatch, removeInventoryItems } from '../../src/kube/inventory.ts';
import { useCrdCluster } from '../support/cluster.ts';

const NS = 'inv';
const R1 = `sha256:${'1'.repeat(64)}`;
const cluster = useCrdCluster({ namespaces: [NS] });

const key = (name: string) => ({ group: '', kind: 'ConfigMap', namespace: NS, name });
const inventory = (name: string, body: Partial<ReleaseInventory>): ReleaseInventory => ({
  apiVersion: API_VERSION,
  kind: 'ReleaseInventory',
  metadata: { name, namespace: NS },
  ...body,
});
const ref = (name: string) => ({ apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace: NS, name });

/** What the controller-manager sends: keys, version, wave, renderRef. */
function controllerApply(name: string, entries: string[]) {
  return applyObject(
    cluster.client,
    inventory(name, {
      entries: entries.map((n, i) => ({ ...key(n), version: 'v1', wave: i, renderRef: R1 })),
    }),
    { fieldManager: FIELD_MANAGERS.controller, force: true },
  );
}

/** What the health loop sends: keys and health fields, guarded by the cached uid. */
function healthApply(cached: ReleaseInventory, states: Record<string, InventoryEntry['state']>) {
  const entries = Object.entries(states).map(([n, state]) => ({
    ...key(n),
    state,
    assessedRenderRef: R1,
    message: `${n} is ${state}`,
  }));
  return applyObject(cluster.client, inventory(cached.metadata.name ?? '', { entries }), {
    fieldManager: FIELD_MANAGERS.healthInventory,
    force: true,
    ...existingOnly(cached),
  });
}

const entry = (inv: ReleaseInventory | undefined, name: string) => inv?.entries?.find((e) => e.name === name);

function managersOf(inv: ReleaseInventory, name: string): string[] {
  return (inv.metadata.managedFields ?? [])
    .filter((m) => JSON.stringify(m.fieldsV1 ?? {}).includes(`\\"name\\":\\"${name}\\"`))
    .map((m) => m.manager ?? '')
    .sort();
}

test('two managers on one entry each keep their own fields', async () => {
  const created = await controllerApply('two', ['a', 'b']);
  await healthApply(created, { a: 'Healthy', b: 'Progressing' });
  // the controller re-applies only its fields (new wave for b): health fields stay
  const again = await applyObject(
    cluster.client,
    inventory('two', {
      entries: [
        { ...key('a'), version: 'v1', wave: 0, renderRef: R1 },
        { ...key('b'), version: 'v1', wave: 5, renderRef: R1 },
      ],
    }),
    { fieldManager: FIELD_MANAGERS.controller, force: true },
  );
  assert.deepEqual(entry(again, 'b'), {
    ...key('b'),
    version: 'v1',
    wave: 5,
    renderRef: R1,
    state: 'Progressing',
    assessedRenderRef: R1,
    message: 'b is Progressing',
  });
  // the health loop re-applies: controller fields stay, integers stay integers
  const healthy = await healthApply(again, { a: 'Healthy', b: 'Healthy' });
  assert.equal(entry(healthy, 'b')?.state, 'Healthy');
  assert.equal(entry(healthy, 'b')?.wave, 5);
  assert.ok(Number.isInteger(entry(healthy, 'b')?.wave));
  assert.deepEqual(managersOf(healthy, 'b'), [FIELD_MANAGERS.controller, FIELD_MANAGERS.healthInventory]);
});

test('an entry the controller drops stays while health owns fields in it; the explicit patch removes it', async () => {
  const created = await controllerApply('drop', ['a', 'b', 'c']);
  await healthApply(created, { a: 'Healthy', b: 'Degraded', c: 'Healthy' });

  // a plain apply without b: the apiserver removes only the controller's fields of b
  const dropped = await controllerApply('drop', ['a', 'c']);
  assert.deepEqual(
    entry(dropped, 'b'),
    { ...key('b'), state: 'Degraded', assessedRenderRef: R1, message: 'b is Degraded' },
    'b survives as keys + the health fields, without version/wave/renderRef',
  );
  assert.deepEqual(managersOf(dropped, 'b'), [FIELD_MANAGERS.healthInventory]);

  // convoy's way: a guarded JSON patch removes the item for good, with every manager's ownership of it
  const { inventory: after, removed } = await removeInventoryItems(
    cluster.client,
    { namespace: NS, name: 'drop' },
    [key('b')],
  );
  assert.ok(removed);
  assert.deepEqual(
    after?.entries?.map((e) => e.name),
    ['a', 'c'],
  );
  assert.deepEqual(managersOf(after as ReleaseInventory, 'b'), []);

  // the health loop's next pass sends only entries that still carry a renderRef: b does not come back
  const next = await healthApply(after as ReleaseInventory, { a: 'Healthy', c: 'Healthy' });
  assert.deepEqual(
    next.entries?.map((e) => e.name),
    ['a', 'c'],
  );
  // removing what is already gone is a no-op
  assert.equal(
    (await removeInventoryItems(cluster.client, { namespace: NS, name: 'drop' }, [key('b')])).removed,
    false,
  );
});

test('the test ops refuse a patch computed from a list that has moved since', async () => {
  await controllerApply('race', ['a', 'b', 'c']);
  const snapshot = (await cluster.client.get<ReleaseInventory>(ref('race'))) as ReleaseInventory;
  const stalePatch = removalPatch(snapshot, [key('c')]); // c is at index 2 in the snapshot
  await removeInventoryItems(cluster.client, { namespace: NS, name: 'race' }, [key('a')]); // c moves to index 1
  await assert.rejects(
    cluster.client.request({
      method: 'PATCH',
      path: await cluster.client.pathOf(ref('race')),
      contentType: 'application/json-patch+json',
      body: stalePatch,
    }),
    (err: unknown) => err instanceof KubeApiError && err.code === 422,
  );
  const now = await cluster.client.get<ReleaseInventory>(ref('race'));
  assert.deepEqual(
    now?.entries?.map((e) => e.name),
    ['b', 'c'],
    'nothing was removed by the refused patch',
  );
  // removeInventoryItems re-reads, so it removes the right item
  const { inventory: after } = await removeInventoryItems(cluster.client, { namespace: NS, name: 'race' }, [
    key('c'),
  ]);
  assert.deepEqual(
    after?.entries?.map((e) => e.name),
    ['b'],
  );
});

test('an apply with a stale resourceVersion re-creates a deleted inventory; the uid precondition does not', async () => {
  const created = await controllerApply('stale', ['a']);
  const cached = (await healthApply(created, { a: 'Healthy' })) as ReleaseInventory;
  assert.ok(await cluster.client.delete(ref('stale')));

  // the resourceVersion alone is no guard against creation (kube-apiserver v1.36.3)
  const recreated = await applyObject(
    cluster.client,
    inventory('stale', { entries: [{ ...key('a'), state: 'Healthy' }] }),
    {
      fieldManager: FIELD_MANAGERS.healthInventory,
      resourceVersionPrecondition: cached.metadata.resourceVersion,
    },
  );
  assert.notEqual(recreated.metadata.uid, cached.metadata.uid);
  assert.ok(await cluster.client.delete(ref('stale')));

  // the uid of the cached object is: the apply fails and nothing is created
  await assert.rejects(
    applyObject(cluster.client, inventory('stale', { entries: [{ ...key('a'), state: 'Healthy' }] }), {
      fieldManager: FIELD_MANAGERS.healthInventory,
      uidPrecondition: cached.metadata.uid,
      resourceVersionPrecondition: cached.metadata.resourceVersion,
    }),
    (err: unknown) => isKubeError(err, 'Conflict') && /uid mismatch/.test(err.apiMessage),
  );
  assert.equal(await cluster.client.get(ref('stale')), undefined);

  // on an existing object, a stale resourceVersion is a 409 Conflict
  const fresh = await controllerApply('stale', ['a']);
  await controllerApply('stale', ['a', 'b']);
  await assert.rejects(
    applyObject(cluster.client, inventory('stale', { entries: [{ ...key('a'), state: 'Degraded' }] }), {
      fieldManager: FIELD_MANAGERS.healthInventory,
      uidPrecondition: fresh.metadata.uid,
      resourceVersionPrecondition: fresh.metadata.resourceVersion,
    }),
    (err: unknown) => isKubeError(err, 'Conflict'),
  );
});
