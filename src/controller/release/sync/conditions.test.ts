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
} from '../errors.ts';
import { conditionsFor, type ReconcileOutcome } from './conditions.ts';

const R = `sha256:${'e'.repeat(64)}`;
type Row = [string, ReconcileOutcome, ready: string, reason: string, stalled: 'True' | 'False'];
const fail = (error: ReleaseError): ReconcileOutcome => ({ kind: 'failed', error });

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
    'awaiting approval',
    { kind: 'held', reason: 'WaitingForApproval', message: 'm' },
    'False',
    'WaitingForApproval',
    'False',
  ],
  [
    'cluster wave',
    { kind: 'held', reason: 'WaitingForClusterWave', message: 'm' },
    'Unknown',
    'WaitingForClusterWave',
    'False',
  ],
  [
    'suspended: a person must resume it',
    { kind: 'held', reason: 'Suspended', message: 'm' },
    'False',
    'Suspended',
    'False',
  ],
  [
    'cluster paused',
    { kind: 'held', reason: 'ClusterPaused', message: 'm' },
    'False',
    'ClusterPaused',
    'False',
  ],
  [
    'wave health',
    { kind: 'held', reason: 'WaitingForWaveHealth', message: 'm' },
    'Unknown',
    'WaitingForWaveHealth',
    'False',
  ],
  [
    'hook running',
    { kind: 'held', reason: 'WaitingForHook', message: 'm' },
    'Unknown',
    'WaitingForHook',
    'False',
  ],
  [
    'wave timeout without failurePolicy',
    { kind: 'held', reason: 'WaveTimeout', message: 'm' },
    'False',
    'WaveTimeout',
    'False',
  ],
  ['deleting', { kind: 'deleting', message: 'm' }, 'Unknown', 'Deleting', 'False'],
  ['source failed: retry', fail(new SourceFailedError('x')), 'False', 'SourceFailed', 'False'],
  ['render failed: stalled', fail(new RenderFailedError('x')), 'False', 'RenderFailed', 'True'],
  ['pin not found: stalled', fail(new PinNotFoundError('x')), 'False', 'PinNotFound', 'True'],
  [
    'cluster not found',
    fail(new ClusterUnavailableError('ClusterNotFound', 'x')),
    'False',
    'ClusterNotFound',
    'False',
  ],
  [
    'cluster not ready',
    fail(new ClusterUnavailableError('ClusterNotReady', 'x')),
    'False',
    'ClusterNotReady',
    'False',
  ],
  [
    'dry run, invalid object (422): stalled',
    fail(DryRunFailedError.fromStatus('x', 422)),
    'False',
    'DryRunFailed',
    'True',
  ],
  [
    'dry run, bad request (400): stalled',
    fail(DryRunFailedError.fromStatus('x', 400)),
    'False',
    'DryRunFailed',
    'True',
  ],
  [
    'dry run, kind not found (404): retry',
    fail(DryRunFailedError.fromStatus('x', 404)),
    'False',
    'DryRunFailed',
    'False',
  ],
  [
    'dry run, webhook down (500): retry',
    fail(DryRunFailedError.fromStatus('x', 500)),
    'False',
    'DryRunFailed',
    'False',
  ],
  [
    'dry run, no response: retry',
    fail(DryRunFailedError.fromStatus('x', undefined)),
    'False',
    'DryRunFailed',
    'False',
  ],
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
