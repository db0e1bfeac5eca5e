// stageSync's order of calls over an injected recording client: the dry run of the whole render, the
// persist, then each wave noted, applied and recorded, stopping at the first hold or failure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cm, failDryRun, fakeCluster, sync, waitPrevious, waveWrites } from './stage-sync-fixtures.ts';

describe('stageSync: the executor runs the plan in order and stops at the first hold or failure', () => {
  it('dry run of the whole render, persist, then each wave noted, applied and recorded', async () => {
    const cluster = fakeCluster();
    const result = await sync([cm('a', 0), cm('b', 1)], cluster);
    assert.equal(result.kind, 'synced');
    assert.deepEqual(cluster.calls, [
      'dry-run a',
      'dry-run b',
      'store R',
      ...waveWrites([], ['a']),
      ...waveWrites(['a'], ['b']),
    ]);
  });

  it('a failed dry run writes nothing: no render stored, no inventory, no apply', async () => {
    const cluster = fakeCluster();
    const failing = { ...cluster, client: failDryRun(cluster.client, 'b') };
    const result = await sync([cm('a', 0), cm('b', 1)], failing);
    assert.equal(result.kind, 'failed');
    assert.equal(result.kind === 'failed' ? result.attempt : 'x', undefined);
    assert.deepEqual(cluster.calls, ['dry-run a']);
  });

  it('a failed persist stops before the inventory and the waves', async () => {
    const cluster = fakeCluster();
    const result = await sync([cm('a', 0)], cluster, { failPersist: true });
    assert.match(
      result.kind === 'failed' ? result.error.message : result.kind,
      /storing render .*store down/,
    );
    assert.deepEqual(cluster.calls, ['dry-run a', 'store R']);
  });

  it('a WaitPrevious gate that holds stops before the wave is noted: nothing of it is pending or applied', async () => {
    const cluster = fakeCluster();
    const result = await sync([cm('a', 0), cm('b', 1)], cluster, { release: waitPrevious(1) });
    assert.equal(result.kind === 'held' ? result.reason : result.kind, 'WaitingForWaveHealth');
    assert.equal(result.kind === 'held' ? result.attempt.applied : true, false);
    assert.deepEqual(cluster.calls.slice(-3), waveWrites([], ['a']));
  });

  it('WaitPrevious on the first wave gates nothing', async () => {
    const cluster = fakeCluster();
    const result = await sync([cm('a', 0), cm('b', 1)], cluster, { release: waitPrevious(0) });
    assert.equal(result.kind, 'synced');
  });
});
