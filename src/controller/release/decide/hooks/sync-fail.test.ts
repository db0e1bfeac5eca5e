import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { entry, hookObj, NOW, R1, R2 } from './fixtures.ts';
import {
  type SyncFailInput,
  type SyncFailOutcome,
  type SyncFailTrigger,
  syncFailFires,
  syncFailHooks,
  syncFailTrigger,
} from './sync-fail.ts';

const T0 = '2025-06-01T11:00:00Z';
const T1 = '2025-06-01T11:05:00Z';
const hooks = [hookObj('page', 'SyncFail'), hookObj('migrate', 'PreSync')];
const base: SyncFailInput = {
  trigger: { kind: 'rolloutFailed' },
  renderRef: R1,
  hooks,
  entries: [],
  now: NOW,
};

describe('syncFailFires', () => {
  const table: [SyncFailTrigger, boolean][] = [
    [{ kind: 'syncFailed', reason: 'ApplyFailed' }, true],
    [{ kind: 'syncFailed', reason: 'HookFailed' }, true],
    [{ kind: 'syncFailed', reason: 'DryRunFailed' }, true],
    [{ kind: 'syncFailed', reason: 'PruneFailed' }, true],
    // no render of R was tried, or the cluster cannot be reached to run anything
    [{ kind: 'syncFailed', reason: 'SourceFailed' }, false],
    [{ kind: 'syncFailed', reason: 'PersistFailed' }, false],
    [{ kind: 'syncFailed', reason: 'ClusterNotReady' }, false],
    [{ kind: 'rolloutFailed' }, true],
    [{ kind: 'rolledBack' }, false],
    [{ kind: 'none' }, false],
  ];
  for (const [t, want] of table)
    it(`${JSON.stringify(t)} → ${want}`, () => assert.equal(syncFailFires(t), want));
});

describe('syncFailHooks', () => {
  it('arms the SyncFail hooks of R on a failure', () => {
    const d = syncFailHooks({ ...base, trigger: { kind: 'syncFailed', reason: 'ApplyFailed' } });
    assert.equal(d.kind, 'arm');
    assert.deepEqual(d.kind === 'arm' && d.hooks.map((h) => [h.hook.name, h.hook.phase]), [
      ['page', 'SyncFail'],
    ]);
  });
  it('never on RolledBack', () => {
    assert.deepEqual(syncFailHooks({ ...base, trigger: { kind: 'rolledBack' } }), { kind: 'none' });
  });
  it('runs once per render: a second failure, or the later transition to Failed, does not re-run it', () => {
    const ran = entry('page', 'SyncFail', R1, T0, { state: 'Succeeded', finishedAt: T1 });
    assert.equal(syncFailHooks({ ...base, entries: [ran] }).kind, 'succeeded');
    assert.equal(
      syncFailHooks({ ...base, entries: [ran], trigger: { kind: 'syncFailed', reason: 'HookFailed' } }).kind,
      'succeeded',
    );
  });
  it('runs again for another render', () => {
    const ran = entry('page', 'SyncFail', R2, T0, { state: 'Succeeded', finishedAt: T1 });
    assert.equal(syncFailHooks({ ...base, entries: [ran] }).kind, 'arm');
  });
  it('runs again after a forced sync', () => {
    const ran = entry('page', 'SyncFail', R1, T0, { state: 'Succeeded', finishedAt: T1 });
    assert.equal(syncFailHooks({ ...base, entries: [ran], forcedAt: '2025-06-01T11:30:00Z' }).kind, 'arm');
  });
  it('none when R has no SyncFail hooks', () => {
    assert.deepEqual(syncFailHooks({ ...base, hooks: [hookObj('migrate', 'PreSync')] }), { kind: 'none' });
  });
});

describe('syncFailTrigger', () => {
  const rollout = (state: string, renderRef = R1): SyncFailOutcome['rollout'] => ({
    kind: 'rollout',
    rollout: { state, renderRef },
  });
  const table: [string, SyncFailOutcome, SyncFailTrigger][] = [
    [
      'stageSync of R failed',
      { result: { kind: 'failed', error: { reason: 'ApplyFailed' } }, rollout: rollout('Progressing') },
      { kind: 'syncFailed', reason: 'ApplyFailed' },
    ],
    [
      'the rollout of R is Failed',
      { result: { kind: 'synced' }, rollout: rollout('Failed') },
      { kind: 'rolloutFailed' },
    ],
    [
      'another render’s Failed rollout',
      { result: { kind: 'synced' }, rollout: rollout('Failed', R2) },
      { kind: 'none' },
    ],
    [
      'rolled back',
      { result: { kind: 'rolledBack' }, rollout: rollout('RolledBack') },
      { kind: 'rolledBack' },
    ],
    [
      'RolledBack hold, even with a failed result',
      { result: { kind: 'failed', error: { reason: 'ApplyFailed' } }, rollout: rollout('RolledBack') },
      { kind: 'rolledBack' },
    ],
    ['synced, no rollout', { result: { kind: 'synced' }, rollout: { kind: 'none' } }, { kind: 'none' }],
    ['held', { result: { kind: 'held' }, rollout: rollout('Progressing') }, { kind: 'none' }],
  ];
  for (const [name, outcome, want] of table) {
    it(`${name} → ${want.kind}`, () => assert.deepEqual(syncFailTrigger(outcome, R1), want));
  }
});
