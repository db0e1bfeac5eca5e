// stageSync of a render whose PreSync hooks of R already succeeded, with a Helm hook resource whose delete
// policy is hook-succeeded: it is deleted before its entry is dropped (a crash in between leaves the entry
// for the next sync), and it is never applied again. (Which resources are spent is table-tested in
// decide/hooks/resources.test.ts and decide/sync/plan.test.ts; the fake's inventory writes replace the
// object, dropping the observer's hook state, so each case here has the one resource.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ANNOTATION_RELEASE_UID, API_VERSION, FIELD_MANAGERS } from '../../../api/constants.ts';
import { renderRef } from '../../../render/canonical.ts';
import { helmResource, hookObj } from '../decide/hooks/fixtures.ts';
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
