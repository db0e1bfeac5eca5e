// stageSync's order of writes over an injected recording client (an in-memory cluster): each wave's keys
// are noted as pending in the inventory before the first object of the wave is applied, and leave
// pending in the write that records them; a wave that fails part-way records what the API accepted and
// leaves the rest pending; the next sync deletes what an interrupted one left pending and the render left,
// only when the live object carries the Release's uid. The real apiserver runs the same in
// test/e2e/release-inventory-pending.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_VERSION } from '../../../api/constants.ts';
import type { Release, ReleaseInventory } from '../../../api/types.ts';
import { renderRef } from '../../../render/canonical.ts';
import { cm, fakeCluster, release, type Stored, sync, UID, waveWrites } from './stage-sync-fixtures.ts';

describe('stageSync: nothing untracked', () => {
  it('notes each wave as pending before applying it and settles it in the write that records it', async () => {
    const cluster = fakeCluster();
    const result = await sync([cm('a', 0), cm('b', 1), cm('c', 1)], cluster);
    assert.equal(result.kind, 'synced');
    assert.deepEqual(cluster.log, waveWrites([], ['a'], ['b', 'c']));
    const live = cluster.objects.get('ConfigMap/app/b');
    assert.equal(live?.metadata.annotations?.['convoy.kumodo.io/release-uid'], UID);
  });

  it('a synced render whose cached inventory still shows its keys pending is checked against the API, not synced again', async () => {
    const cluster = fakeCluster();
    const objects = [cm('a', 0), cm('b', 1)];
    assert.equal((await sync(objects, cluster)).kind, 'synced');
    const R = renderRef({ hooks: [], objects });
    const synced: Release = {
      ...release,
      status: {
        lastAttempted: { renderRef: R, revision: 'inline:x', time: '2026-01-01T00:00:00Z', applied: true },
        lastSuccessful: { renderRef: R, revision: 'inline:x', time: '2026-01-01T00:00:00Z' },
      },
    };
    // the cache as it was between the note of wave 1 and its record
    const live = cluster.objects.get('ReleaseInventory/app/web') as unknown as ReleaseInventory;
    const stale: ReleaseInventory = {
      ...live,
      entries: (live.entries ?? []).filter((e) => e.name === 'a'),
      pending: (live.entries ?? []).filter((e) => e.name === 'b'),
    };
    const writes = cluster.log.length;
    const again = await sync(objects, cluster, { release: synced, observed: stale });
    assert.equal(again.kind, 'upToDate');
    assert.deepEqual(cluster.log.slice(writes), [], 'no pending note, no apply');

    // the API's inventory really holds a pending key (a crash between apply and record): synced again
    const crashed = { ...live, pending: stale.pending } as unknown as Stored;
    cluster.objects.set('ReleaseInventory/app/web', crashed);
    const resumed = await sync(objects, cluster, { release: synced, observed: stale });
    assert.equal(resumed.kind, 'synced');
    assert.ok(cluster.log.slice(writes).includes('apply b'), cluster.log.join('\n'));
  });

  it('a wave that fails part-way records what the API took and keeps the rest pending', async () => {
    const cluster = fakeCluster({ failApplyOf: 'c' });
    const result = await sync([cm('a', 0), cm('b', 1), cm('c', 1)], cluster);
    assert.equal(result.kind, 'failed');
    assert.match(result.kind === 'failed' ? result.error.message : '', /apply of wave 1 failed: .*c/);
    assert.deepEqual(cluster.log.slice(-2), ['apply b', 'inventory entries=[a,b] pending=[c]']);
  });

  it('the next sync deletes what was left pending and left the render only when convoy set this uid on it', async () => {
    const mine = (name: string, uid: string, manager = 'convoy'): Stored => ({
      ...cm(name, 1),
      metadata: {
        name,
        namespace: 'app',
        annotations: { 'convoy.kumodo.io/release-uid': uid },
        managedFields: [
          {
            manager,
            operation: manager === 'convoy' ? 'Apply' : 'Update',
            fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:convoy.kumodo.io/release-uid': {} } } },
          },
        ],
      },
    });
    const key = (name: string) => ({ group: '', kind: 'ConfigMap', namespace: 'app', name, version: 'v1' });
    const inventory: Stored = {
      apiVersion: API_VERSION,
      kind: 'ReleaseInventory',
      metadata: { name: 'web', namespace: 'app' },
      entries: [],
      pending: [key('gone'), key('foreign'), key('forged'), key('never-created'), key('a')],
    };
    const cluster = fakeCluster({
      // forged: this Release's uid, annotated by someone else (kubectl annotate)
      live: [
        inventory,
        mine('gone', UID),
        mine('foreign', 'another-uid'),
        mine('forged', UID, 'kubectl-annotate'),
      ],
    });
    const result = await sync([cm('a', 0)], cluster);
    assert.equal(result.kind, 'synced');
    assert.deepEqual(cluster.log, [
      'delete gone',
      // `a` is in the render: it stays pending until its wave records it
      ...waveWrites([], ['a']),
    ]);
    assert.ok(cluster.objects.has('ConfigMap/app/foreign'), 'another Release’s object is left alone');
    assert.ok(cluster.objects.has('ConfigMap/app/forged'), 'a copied annotation proves nothing');
    const notes = result.kind === 'synced' ? result.notes.join('\n') : '';
    assert.match(notes, /pruned 1 objects an interrupted sync applied/);
    assert.match(
      notes,
      /left 2 objects that an interrupted sync noted in place: convoy's field manager did not set/,
    );
  });
});
