import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { entry, hookObj, NOW, R1, R2 } from './fixtures.ts';
import { type SyncFailInput, type SyncFailTrigger, syncFailFires, syncFailHooks } from './sync-fail.ts';

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
