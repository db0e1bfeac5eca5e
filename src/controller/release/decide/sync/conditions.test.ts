import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ApplyFailedError,
  ClusterUnavailableError,
  DryRunFailedError,
  HookFailedError,
  PersistFailedError,
  PinNotFoundError,
  PruneFailedError,
  type ReleaseError,
  RenderFailedError,
  SourceFailedError,
} from '../../errors.ts';
import { conditionsFor, type HoldReason, type ReadyOutcome } from './conditions.ts';

const R = `sha256:${'e'.repeat(64)}`;
type Row = [string, ReadyOutcome, ready: string, reason: string, stalled: 'True' | 'False'];
const fail = (error: ReleaseError): ReadyOutcome => ({ kind: 'failed', error });
const held = (reason: HoldReason): ReadyOutcome => ({ kind: 'held', reason, message: 'm' });
const dryRun = (status: number | undefined) => fail(DryRunFailedError.fromStatus('x', status));
const cluster = (reason: 'ClusterNotFound' | 'ClusterNotReady') =>
  fail(new ClusterUnavailableError(reason, 'x'));

const rows: Row[] = [
  ['synced', { kind: 'synced', renderRef: R, revision: 'main@1' }, 'True', 'Synced', 'False'],
  [
    'rolled back',
    { kind: 'rolledBack', renderRef: R, revision: 'r', message: 'm' },
    'False',
    'RolledBack',
    'False',
  ],
  [
    'the rollback holds: the last healthy render could not be applied',
    { kind: 'rollbackHeld', renderRef: R, revision: 'r', message: 'm' },
    'False',
    'RolledBack',
    'False',
  ],
  ['awaiting approval', held('WaitingForApproval'), 'False', 'WaitingForApproval', 'False'],
  ['cluster wave', held('WaitingForClusterWave'), 'Unknown', 'WaitingForClusterWave', 'False'],
  ['suspended: a person must resume it', held('Suspended'), 'False', 'Suspended', 'False'],
  ['cluster paused', held('ClusterPaused'), 'False', 'ClusterPaused', 'False'],
  ['wave health', held('WaitingForWaveHealth'), 'Unknown', 'WaitingForWaveHealth', 'False'],
  ['hook running', held('WaitingForHook'), 'Unknown', 'WaitingForHook', 'False'],
  ['wave timeout without failurePolicy', held('WaveTimeout'), 'False', 'WaveTimeout', 'False'],
  ['deleting', { kind: 'deleting', message: 'm' }, 'Unknown', 'Deleting', 'False'],
  ['source failed: retry', fail(new SourceFailedError('x')), 'False', 'SourceFailed', 'False'],
  ['render failed: stalled', fail(new RenderFailedError('x')), 'False', 'RenderFailed', 'True'],
  ['pin not found: stalled', fail(new PinNotFoundError('x')), 'False', 'PinNotFound', 'True'],
  ['cluster not found', cluster('ClusterNotFound'), 'False', 'ClusterNotFound', 'False'],
  ['cluster not ready', cluster('ClusterNotReady'), 'False', 'ClusterNotReady', 'False'],
  ['dry run, invalid object (422): stalled', dryRun(422), 'False', 'DryRunFailed', 'True'],
  ['dry run, bad request (400): stalled', dryRun(400), 'False', 'DryRunFailed', 'True'],
  ['dry run, kind not found (404): retry', dryRun(404), 'False', 'DryRunFailed', 'False'],
  ['dry run, webhook down (500): retry', dryRun(500), 'False', 'DryRunFailed', 'False'],
  ['dry run, no response: retry', dryRun(undefined), 'False', 'DryRunFailed', 'False'],
  ['persist failed', fail(new PersistFailedError('x')), 'False', 'PersistFailed', 'False'],
  ['apply failed', fail(new ApplyFailedError('x')), 'False', 'ApplyFailed', 'False'],
  ['prune failed', fail(new PruneFailedError('x')), 'False', 'PruneFailed', 'False'],
  ['hook failed', fail(new HookFailedError('x')), 'False', 'HookFailed', 'False'],
];

for (const [name, outcome, ready, reason, stalled] of rows) {
  test(`conditionsFor: ${name}`, () => {
    const got = conditionsFor(outcome);
    assert.equal(got.ready.type, 'Ready');
    assert.deepEqual([got.ready.status, got.ready.reason, got.stalled.status], [ready, reason, stalled]);
    assert.equal(got.stalled.reason, stalled === 'True' ? 'InvalidSpec' : 'NotStalled');
  });
}

test('conditionsFor: messages carry the error, and the applied revision', () => {
  const err = new RenderFailedError('apps/web.yaml document 2: kind missing');
  const got = conditionsFor({ kind: 'failed', error: err });
  assert.equal(got.ready.message, err.message);
  assert.equal(got.stalled.message, err.message);
  assert.match(
    conditionsFor({ kind: 'synced', renderRef: R, revision: 'main@1' }).ready.message,
    /main@1 \(sha256:eeeeeeeeeeee…\)/,
  );
});

test('errors keep their cause', () => {
  const cause = new Error('connection refused');
  assert.equal(new ApplyFailedError('apply', { cause }).cause, cause);
  assert.equal(DryRunFailedError.fromStatus('dry', 500, cause).cause, cause);
});
