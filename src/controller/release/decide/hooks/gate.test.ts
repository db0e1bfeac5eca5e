import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InventoryEntry, InventoryHook } from '../../../../api/types.ts';
import { entry, hookObj, NOW, R1, R2 } from './fixtures.ts';
import { hookGate, type SyncHooksSettledInput, syncHooksSettled } from './gate.ts';
import { planHookPhase } from './plan.ts';

const T0 = '2025-06-01T11:00:00Z';
const T1 = '2025-06-01T11:05:00Z';
const cfg = { group: '', kind: 'ConfigMap', namespace: 'app', name: 'cfg' };
const applied = (state?: InventoryEntry['state']): InventoryEntry => ({
  ...cfg,
  renderRef: R1,
  ...(state === undefined ? {} : { state, assessedRenderRef: R1 }),
});
const done = (name: string, phase: 'PreSync' | 'PostSync', state: 'Succeeded' | 'Failed' = 'Succeeded') =>
  entry(name, phase, R1, T0, { state, finishedAt: T1 });

describe('hookGate', () => {
  it('none and succeeded let the sync go on', () => {
    assert.deepEqual(hookGate('PreSync', { kind: 'none' }), { kind: 'proceed' });
    assert.deepEqual(hookGate('PostSync', { kind: 'succeeded', cleanup: [] }), { kind: 'proceed' });
  });
  it('arm carries the armings and names the hooks', () => {
    const d = planHookPhase({
      phase: 'PreSync',
      hooks: [hookObj('a', 'PreSync'), hookObj('b', 'PreSync')],
      renderRef: R1,
      entries: [],
      now: NOW,
    });
    const g = hookGate('PreSync', d);
    assert.equal(g.kind, 'arm');
    if (g.kind !== 'arm') return;
    assert.equal(g.hooks.length, 2);
    assert.equal(g.message, 'running PreSync hooks: a, b');
  });
  it('waiting and notReady hold with a message', () => {
    assert.deepEqual(hookGate('PostSync', { kind: 'waiting', running: ['smoke'], cleanup: [] }), {
      kind: 'hold',
      message: 'waiting for PostSync hooks: smoke',
    });
    assert.deepEqual(
      hookGate('PostSync', { kind: 'notReady', reason: 'NotYetHealthy', message: 'wait for web' }),
      { kind: 'hold', message: 'wait for web' },
    );
  });
  it('failed fails with the planner’s message', () => {
    const g = hookGate('PreSync', {
      kind: 'failed',
      hook: 'm',
      reason: 'Timeout',
      message: 'PreSync hook m failed: Timeout',
      cleanup: [],
    });
    assert.deepEqual(g, { kind: 'fail', message: 'PreSync hook m failed: Timeout' });
  });
});

describe('syncHooksSettled', () => {
  const base: SyncHooksSettledInput = {
    renderRef: R1,
    hooks: [hookObj('migrate', 'PreSync'), hookObj('smoke', 'PostSync'), hookObj('page', 'SyncFail')],
    objects: [cfg],
    entries: [applied('Healthy')],
    hookEntries: [done('migrate', 'PreSync'), done('smoke', 'PostSync')],
    healthAssessed: true,
    forcedAt: undefined,
    now: NOW,
  };
  const table: [string, Partial<SyncHooksSettledInput>, boolean][] = [
    ['no hooks at all', { hooks: [], hookEntries: [] }, true],
    ['only a SyncFail hook, never run', { hooks: [hookObj('page', 'SyncFail')], hookEntries: [] }, true],
    ['PreSync and PostSync Succeeded for R', {}, true],
    ['PostSync not yet run (objects Healthy)', { hookEntries: [done('migrate', 'PreSync')] }, false],
    [
      'PostSync not yet run, objects not yet Healthy',
      { hookEntries: [done('migrate', 'PreSync')], entries: [applied('Progressing')] },
      false,
    ],
    ['PreSync not yet armed for R', { hookEntries: [done('smoke', 'PostSync')] }, false],
    [
      'PreSync of another render',
      { hookEntries: [{ ...done('migrate', 'PreSync'), renderRef: R2 }, done('smoke', 'PostSync')] },
      false,
    ],
    [
      'PostSync Failed',
      { hookEntries: [done('migrate', 'PreSync'), done('smoke', 'PostSync', 'Failed')] },
      false,
    ],
    ['a forced sync after the runs re-arms PreSync', { forcedAt: '2025-06-01T11:30:00Z' }, false],
    ['a forced sync before the runs changes nothing', { forcedAt: '2025-06-01T10:30:00Z' }, true],
    [
      'PostSync running',
      {
        hookEntries: [
          done('migrate', 'PreSync'),
          entry('smoke', 'PostSync', R1, T0, { state: 'Running' }) as InventoryHook,
        ],
      },
      false,
    ],
  ];
  for (const [name, over, want] of table) {
    it(`${name} → ${want}`, () => assert.equal(syncHooksSettled({ ...base, ...over }), want));
  }
});
