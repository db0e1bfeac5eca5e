// stageSync's order of calls over an injected recording client: the dry run of the whole render, the
// persist, then each wave noted, applied and recorded, stopping at the first hold or failure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DryRunMemo } from '../decide/sync/index.ts';
import { cm, failDryRun, fakeCluster, sync, waitPrevious, waveWrites } from './stage-sync-fixtures.ts';

describe('stageSync: the executor runs the plan in order and stops at the first hold or failure', () => {
  it('dry run of the whole render, persist, then each wave noted, applied and recorded', async () => {
    const cluster = fakeCluster();
    const result = await sync([cm('a', 0), cm('b', 1)], cluster);
    assert.equal(result.kind, 'synced');
    assert.deepEqual(cluster.calls, ['dry-run a', 'dry-run b', 'store R', ...waveWrites([], ['a'], ['b'])]);
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

  it('a render dry-ran in full is not dry-run again; after a failed apply it is', async () => {
    const dryRuns = new DryRunMemo();
    const cluster = fakeCluster();
    const held = await sync([cm('a', 0), cm('b', 1)], cluster, { release: waitPrevious(1), dryRuns });
    assert.equal(held.kind, 'held');
    assert.deepEqual(cluster.calls.slice(0, 2), ['dry-run a', 'dry-run b']);
    cluster.calls.length = 0;
    // the same render again (the gate still holds): no dry run, straight to persist and the waves
    await sync([cm('a', 0), cm('b', 1)], cluster, { release: waitPrevious(1), dryRuns });
    assert.equal(cluster.calls[0], 'store R');
    assert.equal(cluster.calls.filter((c) => c.startsWith('dry-run')).length, 0);

    const failing = fakeCluster({ failApplyOf: 'b' });
    const failed = await sync([cm('a', 0), cm('b', 1)], failing, { dryRuns });
    assert.equal(failed.kind, 'failed');
    failing.calls.length = 0;
    await sync([cm('a', 0), cm('b', 1)], failing, { dryRuns });
    assert.deepEqual(failing.calls.slice(0, 2), ['dry-run a', 'dry-run b']);
  });

  it('WaitPrevious on the first wave gates nothing', async () => {
    const cluster = fakeCluster();
    const result = await sync([cm('a', 0), cm('b', 1)], cluster, { release: waitPrevious(0) });
    assert.equal(result.kind, 'synced');
  });
});
