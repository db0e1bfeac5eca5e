// The Release controller's status write against a real API server: a status decided from a read that the
// observer's writes have since overtaken still lands (those writes touch none of the controller's fields),
// while one decided from a read that misses a write of the controller itself is refused, so it can never
// drop a field that write set (status.lastHealthy once vanished this way).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_VERSION, FIELD_MANAGERS } from '../../src/api/constants.ts';
import type { Release } from '../../src/api/types.ts';
import { writeReleaseStatus } from '../../src/controller/release/act/write-status.ts';
import { writeStatus } from '../../src/kube/status.ts';
import { useCrdCluster } from '../support/cluster.ts';

const NS = 'status-write';
const R1 = `sha256:${'1'.repeat(64)}`;
const cluster = useCrdCluster({ namespaces: [NS] });

async function newRelease(name: string): Promise<Release> {
  const release: Release = {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name, namespace: NS },
    spec: { source: { inline: { manifests: 'kind: ConfigMap' } } },
  };
  return await cluster.client.create(release);
}
const get = (name: string) =>
  cluster.client.get<Release>({ apiVersion: API_VERSION, kind: 'Release', namespace: NS, name });
const healthy = { renderRef: R1, revision: 'one', time: '2024-01-01T00:00:00Z' };
/** The controller's write of lastHealthy, decided from `read`. */
const writeHealthy = (read: Release) =>
  writeReleaseStatus(read, { observedGeneration: 1, lastHealthy: healthy }, { local: cluster.client });
const healthCondition = {
  type: 'Healthy',
  status: 'True',
  reason: 'Healthy',
  message: '',
  lastTransitionTime: '2024-01-01T00:00:00Z',
};

test('an observer write since the read: the controller status still lands, next to the observer condition', async () => {
  const read = await newRelease('observer-raced');
  await writeStatus(
    cluster.client,
    { kind: 'Release', namespace: NS, name: 'observer-raced' },
    { conditions: [healthCondition] },
    {
      fieldManager: FIELD_MANAGERS.observer,
    },
  );
  const noted: Release[] = [];
  const out = await writeReleaseStatus(
    read,
    { observedGeneration: 1, lastHealthy: healthy },
    {
      local: cluster.client,
      noteWritten: (_, w) => noted.push(w),
    },
  );
  assert.equal(out, 'written');
  const live = await get('observer-raced');
  assert.deepEqual(live?.status?.lastHealthy, healthy);
  assert.deepEqual(
    live?.status?.conditions?.map((c) => c.type),
    ['Healthy'],
  );
  assert.equal(noted[0]?.metadata.resourceVersion, live?.metadata.resourceVersion, 'the write is noted');
});

test('a controller write the read misses: refused as a conflict, and the newer status stays', async () => {
  const read = await newRelease('own-raced');
  assert.equal(await writeHealthy(read), 'written');
  // `read` is what a cache that has not seen that write still holds: a status built from it lacks lastHealthy
  assert.equal(
    await writeReleaseStatus(read, { observedGeneration: 1 }, { local: cluster.client }),
    'conflict',
  );
  assert.deepEqual((await get('own-raced'))?.status?.lastHealthy, healthy);
});

test('a Release deleted and created again under the same name: a conflict, nothing written to the new one', async () => {
  const read = await newRelease('recreated');
  await cluster.client.request({
    method: 'DELETE',
    path: await cluster.client.pathOf({
      apiVersion: API_VERSION,
      kind: 'Release',
      namespace: NS,
      name: 'recreated',
    }),
  });
  await newRelease('recreated');
  assert.equal(await writeHealthy(read), 'conflict');
  assert.equal((await get('recreated'))?.status?.lastHealthy, undefined);
});
