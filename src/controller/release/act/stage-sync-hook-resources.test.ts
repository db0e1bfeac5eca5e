// stageSync of a render with Helm hook resources. One whose delete policy is hook-succeeded, once the
// PreSync hooks of R succeeded: it is deleted before its entry is dropped (a crash in between leaves the
// entry for the next sync), and it is never applied again. Resources and hooks of several weights: each goes
// in, or runs, in Helm's order (docs/design.md#hooks). (Which resources are spent is table-tested in
// decide/hooks/resources.test.ts, the order of the steps in decide/sync/plan.test.ts.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ANNOTATION_RELEASE_UID, API_VERSION, FIELD_MANAGERS } from '../../../api/constants.ts';
import { renderRef } from '../../../render/canonical.ts';
import type { Obj } from '../../../render/types.ts';
import { helmResource, entry as hookEntry, hookObj } from '../decide/hooks/fixtures.ts';
import { hookWorkloadName } from '../decide/hooks/index.ts';
import { cm, fakeCluster, type Stored, sync, UID } from './stage-sync-fixtures.ts';

describe('stageSync: hook resources by their delete policy', () => {
  const job = hookObj('init', 'PreSync');
  const objects = [helmResource('ServiceAccount', 'init', 'pre-install', 'hook-succeeded'), cm('a', 0)];
  const R = renderRef({ hooks: [job], objects });
  const entry = (kind: string, name: string) => ({
    group: '',
    kind,
    namespace: 'app',
    name,
    version: 'v1',
    wave: 0,
    renderRef: R,
  });
  /** The live ServiceAccount as convoy's apply left it: it names this Release's uid. */
  const live = (name: string): Stored =>
    ({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: {
        name,
        namespace: 'app',
        annotations: { [ANNOTATION_RELEASE_UID]: UID },
        managedFields: [
          {
            manager: FIELD_MANAGERS.deployer,
            operation: 'Apply',
            fieldsV1: { 'f:metadata': { 'f:annotations': { [`f:${ANNOTATION_RELEASE_UID}`]: {} } } },
          },
        ],
      },
    }) as Stored;
  const inventory = (state: 'Running' | 'Succeeded'): Stored =>
    ({
      apiVersion: API_VERSION,
      kind: 'ReleaseInventory',
      metadata: { name: 'web', namespace: 'app' },
      entries: [entry('ServiceAccount', 'init'), entry('ConfigMap', 'a')],
      hooks: [
        {
          name: 'init',
          phase: 'PreSync',
          kind: 'Job',
          renderRef: R,
          workloadName: hookWorkloadName('init', R),
          namespace: 'app',
          createdAt: '2025-12-31T23:00:00Z',
          state,
          ...(state === 'Succeeded' ? { finishedAt: '2025-12-31T23:00:05Z' } : {}),
        },
      ],
    }) as Stored;

  it('PreSync of R succeeded: deleted first, then its entry dropped, and never applied again', async () => {
    const cluster = fakeCluster({ live: [inventory('Succeeded'), live('init')] });
    const result = await sync(objects, cluster, { hooks: [job] });
    assert.equal(result.kind, 'synced', JSON.stringify(result));
    const at = (line: string) => cluster.log.indexOf(line);
    assert.ok(at('delete init') >= 0, cluster.log.join('\n'));
    assert.ok(at('delete init') < at('inventory remove [init]'), cluster.log.join('\n'));
    assert.ok(!cluster.log.includes('apply init'), cluster.log.join('\n'));
    assert.equal(cluster.objects.get('ServiceAccount/app/init'), undefined);
  });

  it('PreSync of R still running: applied before it again, nothing deleted', async () => {
    const cluster = fakeCluster({ live: [inventory('Running'), live('init')] });
    const result = await sync(objects, cluster, { hooks: [job] });
    assert.equal(result.kind, 'held', JSON.stringify(result));
    assert.ok(cluster.log.includes('apply init'), cluster.log.join('\n'));
    assert.ok(!cluster.log.some((l) => l.startsWith('delete') || l.startsWith('inventory remove')));
  });

  it('a crash between the delete and the record: the next sync drops the entry of the object already gone', async () => {
    const cluster = fakeCluster({ live: [inventory('Succeeded')] });
    const result = await sync(objects, cluster, { hooks: [job] });
    assert.equal(result.kind, 'synced', JSON.stringify(result));
    assert.ok(cluster.log.includes('inventory remove [init]'), cluster.log.join('\n'));
    assert.ok(!cluster.log.includes('apply init'), cluster.log.join('\n'));
  });
});

describe("stageSync: PreSync hook resources and hooks in Helm's order by weight", () => {
  const weighted = (kind: string, name: string, weight: string): Obj => {
    const o = helmResource(kind, name, 'pre-install');
    return {
      ...o,
      metadata: { ...o.metadata, annotations: { ...o.metadata.annotations, 'helm.sh/hook-weight': weight } },
    };
  };
  const hooks = [hookObj('first', 'PreSync', { weight: '-5' }), hookObj('init', 'PreSync', { weight: '0' })];
  const objects = [weighted('ServiceAccount', 'runner', '0'), weighted('ConfigMap', 'late', '5'), cm('a', 0)];

  it('a first sync runs the weight -5 hook alone: the weight 0 ServiceAccount waits for it', async () => {
    const cluster = fakeCluster({});
    const result = await sync(objects, cluster, { hooks });
    assert.equal(result.kind, 'held', JSON.stringify(result));
    const applied = cluster.log.filter((l) => l.startsWith('apply'));
    assert.deepEqual(applied.length, 1, cluster.log.join('\n'));
    assert.match(applied[0] ?? '', /^apply first-/);
  });

  it('once it succeeded: the ServiceAccount, then the weight 0 hook; the weight 5 ConfigMap waits for that', async () => {
    const R = renderRef({ hooks, objects });
    const done = hookEntry('first', 'PreSync', R, '2025-12-31T23:00:00Z', {
      state: 'Succeeded',
      finishedAt: '2025-12-31T23:00:05Z',
    });
    const inventory = {
      apiVersion: API_VERSION,
      kind: 'ReleaseInventory',
      metadata: { name: 'web', namespace: 'app' },
      entries: [],
      hooks: [done],
    } as unknown as Stored;
    const cluster = fakeCluster({ live: [inventory] });
    const result = await sync(objects, cluster, { hooks });
    assert.equal(result.kind, 'held', JSON.stringify(result));
    const applied = cluster.log.filter((l) => l.startsWith('apply')).map((l) => l.replace(/-[0-9a-f]+$/, ''));
    assert.deepEqual(applied, ['apply runner', 'apply init'], cluster.log.join('\n'));
  });
});
