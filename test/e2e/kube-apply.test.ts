// The SSA helper, discovery, error mapping and the status writer against the real apiserver.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_VERSION, FIELD_MANAGERS } from '../../src/api/constants.ts';
import { statusSchemaOf } from '../../src/api/crds.ts';
import type { KubeObject, Release } from '../../src/api/types.ts';
import { applyObject } from '../../src/kube/apply.ts';
import { describeCauses, isConflict, isKubeError, KubeApiError } from '../../src/kube/errors.ts';
import { fieldSetOf, parseFieldsV1 } from '../../src/kube/fieldset.ts';
import { writeStatus } from '../../src/kube/status.ts';
import { useCrdCluster } from '../support/cluster.ts';

const NS = 'apply';
const R1 = `sha256:${'1'.repeat(64)}`;
const cluster = useCrdCluster({ namespaces: [NS] });

function release(name: string, spec: Partial<Release['spec']> = {}): Release {
  return {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name, namespace: NS },
    spec: { source: { inline: { manifests: 'kind: ConfigMap' } }, ...spec },
  };
}

test('discovery: plural and scope of built-in and custom kinds', async () => {
  const rows = [
    ['apps/v1', 'Deployment', 'deployments', true],
    ['v1', 'Namespace', 'namespaces', false],
    ['v1', 'ConfigMap', 'configmaps', true],
    [API_VERSION, 'Release', 'releases', true],
    [API_VERSION, 'GlobalHealthRuleSet', 'globalhealthrulesets', false],
  ] as const;
  for (const [apiVersion, kind, plural, namespaced] of rows) {
    const info = await cluster.client.resourceFor(apiVersion, kind);
    assert.deepEqual([info.plural, info.namespaced], [plural, namespaced], kind);
  }
  await assert.rejects(
    cluster.client.resourceFor('apps/v1', 'NoSuchKind'),
    (e: unknown) => isKubeError(e) && e.code === 404,
  );
  await assert.rejects(
    cluster.client.resourceFor('nope.example.com/v1', 'X'),
    (e: unknown) => isKubeError(e) && e.code === 404,
  );
});

test('a CRD object with free-form values round-trips unchanged, integers stay integers', async () => {
  const values = {
    replicas: 3,
    ratio: 0.5,
    big: 1234567890123,
    list: [1, 'two', { three: 3 }],
    nested: { empty: {}, t: true },
  };
  const obj = release('roundtrip', { render: { type: 'Helm', helm: { values } }, historyLimit: 7 });
  const stored = await applyObject(cluster.client, obj, { fieldManager: FIELD_MANAGERS.api });
  assert.deepEqual(stored.spec.render?.helm?.values, values);
  const raw = await cluster.client.request<string>({
    method: 'GET',
    path: await cluster.client.pathOf({ ...obj, name: 'roundtrip', namespace: NS }),
  });
  assert.match(JSON.stringify(raw), /"replicas":3[,}]/);
  assert.match(JSON.stringify(raw), /"historyLimit":7/);
});

test('a built-in kind keeps every field: the body is sent as raw JSON, not through client models', async () => {
  const cm: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'raw', namespace: NS, labels: { a: 'b' } },
    data: { 'x.json': '{"n": 1}' },
    binaryData: { bin: Buffer.from([0, 1, 2]).toString('base64') },
    immutable: false,
  };
  const stored = await applyObject(cluster.client, cm, {
    fieldManager: FIELD_MANAGERS.deployer,
    force: true,
  });
  assert.deepEqual([stored.data, stored.binaryData, stored.immutable], [cm.data, cm.binaryData, false]);
});

test('re-applying an object read from the server works: managedFields and resourceVersion are stripped', async () => {
  const first = await applyObject(cluster.client, release('reread'), { fieldManager: FIELD_MANAGERS.api });
  assert.ok((first.metadata.managedFields ?? []).length > 0);
  const again = await applyObject(
    cluster.client,
    { ...first, metadata: { ...first.metadata, labels: { x: 'y' } } },
    { fieldManager: FIELD_MANAGERS.api },
  );
  assert.deepEqual(again.metadata.labels, { x: 'y' });
});

test('dry run persists nothing; force takes over a field another manager owns', async () => {
  await applyObject(cluster.client, release('dry'), { fieldManager: FIELD_MANAGERS.api, dryRun: true });
  assert.equal(
    await cluster.client.get({ apiVersion: API_VERSION, kind: 'Release', namespace: NS, name: 'dry' }),
    undefined,
  );

  await applyObject(cluster.client, release('owned', { historyLimit: 5 }), { fieldManager: 'person' });
  await assert.rejects(
    applyObject(cluster.client, release('owned', { historyLimit: 6 }), { fieldManager: FIELD_MANAGERS.api }),
    (e: unknown) => isKubeError(e, 'Conflict') && /historyLimit/.test(e.apiMessage),
  );
  const forced = await applyObject(cluster.client, release('owned', { historyLimit: 6 }), {
    fieldManager: FIELD_MANAGERS.api,
    force: true,
  });
  assert.equal(forced.spec.historyLimit, 6);
});

test('an invalid object gives a KubeApiError naming the object and the field', async () => {
  const bad = { ...release('bad'), spec: { source: {} } } as unknown as Release;
  const err = await applyObject(cluster.client, bad, { fieldManager: FIELD_MANAGERS.api }).then(
    () => assert.fail('accepted'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof KubeApiError);
  assert.equal(err.code, 422);
  assert.equal(err.reason, 'Invalid');
  assert.equal(err.details.name, 'bad');
  assert.equal(err.details.kind, 'Release');
  assert.match(describeCauses(err), /spec\.source: .*exactly one source/);
});

test('status writer: writes, skips an unchanged write, writes a change, keeps other managers apart', async () => {
  const rel = await applyObject(cluster.client, release('status'), { fieldManager: FIELD_MANAGERS.api });
  const target = { kind: 'Release', namespace: NS, name: 'status' };
  const ready = {
    type: 'Ready',
    status: 'True',
    reason: 'Synced',
    message: 'applied',
    lastTransitionTime: '2024-01-01T00:00:00Z',
  };
  const desired = {
    observedGeneration: 1,
    conditions: [ready],
    waves: [{ renderRef: R1, wave: 0, startedAt: '2024-01-01T00:00:00Z' }],
  };

  const first = await writeStatus<Release>(cluster.client, target, desired, {
    fieldManager: FIELD_MANAGERS.controller,
    cached: rel,
  });
  assert.equal(first.written, true);
  const stored = first.written ? first.object : rel;

  // the field set the writer computes is the one the apiserver recorded
  const schema = statusSchemaOf('Release');
  const entry = stored.metadata.managedFields?.find(
    (m) => m.manager === FIELD_MANAGERS.controller && m.subresource === 'status',
  );
  assert.deepEqual(
    [...parseFieldsV1((entry?.fieldsV1 as Record<string, unknown> | undefined)?.['f:status'])].sort(),
    [...fieldSetOf(desired, schema)].sort(),
  );

  assert.deepEqual(
    await writeStatus(cluster.client, target, desired, {
      fieldManager: FIELD_MANAGERS.controller,
      cached: stored,
    }),
    { written: false },
  );

  // the health writer owns its condition; the controller's unchanged write is still skipped
  const healthy = {
    type: 'Healthy',
    status: 'True',
    reason: 'NotConfigured',
    message: '',
    lastTransitionTime: '2024-01-01T00:00:00Z',
  };
  const h = await writeStatus<Release>(
    cluster.client,
    target,
    { conditions: [healthy] },
    { fieldManager: FIELD_MANAGERS.observer, cached: stored },
  );
  assert.ok(h.written);
  const both = h.written ? h.object : stored;
  assert.deepEqual(both.status?.conditions?.map((c) => c.type).sort(), ['Healthy', 'Ready']);
  assert.deepEqual(
    await writeStatus(cluster.client, target, desired, {
      fieldManager: FIELD_MANAGERS.controller,
      cached: both,
    }),
    { written: false },
  );

  // dropping a field the manager owned is a change: the write goes out and removes it
  const { waves: _dropped, ...withoutWaves } = desired;
  const third = await writeStatus<Release>(cluster.client, target, withoutWaves, {
    fieldManager: FIELD_MANAGERS.controller,
    cached: both,
  });
  assert.ok(third.written);
  assert.equal(third.written && third.object.status?.waves, undefined);
  assert.deepEqual(third.written && third.object.status?.conditions?.map((c) => c.type).sort(), [
    'Healthy',
    'Ready',
  ]);

  // status sent to the main resource is ignored (status subresource)
  const viaMain = await applyObject(
    cluster.client,
    { ...release('status'), status: { observedGeneration: 99 } } as Release,
    {
      fieldManager: FIELD_MANAGERS.api,
    },
  );
  assert.equal(viaMain.status?.observedGeneration, 1);
});

test('status writer with precondition: a status built from a stale read is refused with 409, the newer one stays', async () => {
  const rel = await cluster.client.create<Release>(release('stale-status'));
  const target = { kind: 'Release', namespace: NS, name: 'stale-status' };
  const opts = { fieldManager: FIELD_MANAGERS.controller, precondition: true } as const;
  const healthy = { renderRef: R1, revision: 'one', time: '2024-01-01T00:00:00Z' };
  const first = await writeStatus<Release>(
    cluster.client,
    target,
    { observedGeneration: 1, lastHealthy: healthy },
    {
      ...opts,
      cached: rel,
    },
  );
  assert.ok(first.written);
  // `rel` is what a cache that has not seen the first write still holds: its status lacks lastHealthy, so
  // without the precondition this apply would remove lastHealthy.
  await assert.rejects(
    writeStatus<Release>(cluster.client, target, { observedGeneration: 1 }, { ...opts, cached: rel }),
    (err) => isConflict(err),
  );
  const live = await cluster.client.get<Release>({
    apiVersion: API_VERSION,
    kind: 'Release',
    namespace: NS,
    name: 'stale-status',
  });
  assert.deepEqual(live?.status?.lastHealthy, healthy);
  // from the fresh read it goes through
  const second = await writeStatus<Release>(
    cluster.client,
    target,
    { observedGeneration: 1 },
    {
      ...opts,
      cached: first.written ? first.object : rel,
    },
  );
  assert.ok(second.written);
  assert.equal(second.written && second.object.status?.lastHealthy, undefined);
});
