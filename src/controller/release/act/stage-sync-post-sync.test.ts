// stageSync of a render held for its PostSync hooks: nothing is applied or written while the hook runs,
// the sync ends applied once it Succeeded, and keys an interrupted sync left pending run the waves again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_VERSION } from '../../../api/constants.ts';
import type { Release } from '../../../api/types.ts';
import { renderRef } from '../../../render/canonical.ts';
import type { Obj } from '../../../render/types.ts';
import { hookWorkloadName } from '../decide/hooks/index.ts';
import { cm, fakeCluster, release, type Stored, sync } from './stage-sync-fixtures.ts';

describe('stageSync: held for PostSync hooks', () => {
  const smoke: Obj = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'smoke', namespace: 'app', annotations: { 'convoy.kumodo.io/hook': 'PostSync' } },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }] } } },
  };
  const objects = [cm('a', 0), cm('b', 1)];
  const R = renderRef({ hooks: [smoke], objects });
  const entry = (name: string, wave: number) => ({
    group: '',
    kind: 'ConfigMap',
    namespace: 'app',
    name,
    version: 'v1',
    wave,
    renderRef: R,
  });
  const armed = {
    name: 'smoke',
    phase: 'PostSync' as const,
    kind: 'Job' as const,
    renderRef: R,
    workloadName: hookWorkloadName('smoke', R),
    namespace: 'app',
    createdAt: '2026-01-01T00:00:00Z',
  };
  const held: Release = {
    ...release,
    status: {
      lastAttempted: {
        renderRef: R,
        revision: 'inline:x',
        time: '2026-01-01T00:00:00Z',
        applied: false,
        reason: 'WaitingForHook',
      },
    },
  };
  const inventory = (hook: Record<string, unknown>, extra: Partial<Stored> = {}): Stored =>
    ({
      apiVersion: API_VERSION,
      kind: 'ReleaseInventory',
      metadata: { name: 'web', namespace: 'app' },
      entries: [entry('a', 0), entry('b', 1)],
      hooks: [hook],
      ...extra,
    }) as Stored;

  it('applies and writes nothing while the hook runs: the observer records its result in an inventory left alone', async () => {
    const cluster = fakeCluster({ live: [inventory(armed)] });
    const result = await sync(objects, cluster, { hooks: [smoke], release: held });
    assert.equal(result.kind, 'held');
    assert.match(result.kind === 'held' ? result.message : '', /waiting for PostSync hooks: smoke/);
    assert.deepEqual(cluster.log, []);
  });

  it('the hook Succeeded: the sync of R ends applied, without applying its waves again', async () => {
    const done = { ...armed, state: 'Succeeded', reason: 'Succeeded', finishedAt: '2026-01-01T00:00:05Z' };
    const cluster = fakeCluster({ live: [inventory(done)] });
    const result = await sync(objects, cluster, { hooks: [smoke], release: held });
    assert.equal(result.kind, 'synced');
    assert.equal(result.kind === 'synced' ? result.attempt.applied : undefined, true);
    assert.deepEqual(cluster.log, []);
  });

  it('an interrupted sync left keys pending: the waves run again in full', async () => {
    const cluster = fakeCluster({ live: [inventory(armed, { pending: [entry('b', 1)] })] });
    const result = await sync(objects, cluster, { hooks: [smoke], release: held });
    assert.equal(result.kind, 'held');
    assert.ok(cluster.log.includes('apply a'), cluster.log.join('\n'));
    assert.ok(cluster.log.includes('apply b'), cluster.log.join('\n'));
  });
});
