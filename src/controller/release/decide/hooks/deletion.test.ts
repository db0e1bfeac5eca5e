import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InventoryHook } from '../../../../api/types.ts';
import { hookWorkloadName } from './defs.ts';
import { type DeletionPlanInput, type DeletionStep, deletionPlan } from './deletion.ts';
import { entry, hookObj, NOW, R1 } from './fixtures.ts';

const T0 = '2025-06-01T11:00:00Z';
const T1 = '2025-06-01T11:05:00Z';
const hooks = [hookObj('drain', 'PreDelete'), hookObj('dns', 'PostDelete'), hookObj('migrate', 'PreSync')];
const base: DeletionPlanInput = {
  render: { renderRef: R1, hooks },
  hookEntries: [],
  objectEntries: 3,
  deletionPolicy: 'Delete',
  now: NOW,
};
const ok = (name: string, phase: 'PreDelete' | 'PostDelete' | 'PreSync') =>
  entry(name, phase, R1, T0, { state: 'Succeeded', finishedAt: T1 });
const bad = (name: string, phase: 'PreDelete' | 'PostDelete') =>
  entry(name, phase, R1, T0, { state: 'Failed', reason: 'Failed', message: 'exit 1', finishedAt: T1 });
const kind = (s: DeletionStep) =>
  s.kind === 'armHooks' || s.kind === 'waitHooks' || s.kind === 'blocked' ? `${s.kind}:${s.phase}` : s.kind;

describe('deletionPlan: PreDelete, prune, PostDelete, finalize', () => {
  const table: [string, Partial<DeletionPlanInput>, string][] = [
    ['start: arm PreDelete', {}, 'armHooks:PreDelete'],
    [
      'PreDelete running',
      { hookEntries: [entry('drain', 'PreDelete', R1, T0, { state: 'Running' })] },
      'waitHooks:PreDelete',
    ],
    ['PreDelete failed: blocked', { hookEntries: [bad('drain', 'PreDelete')] }, 'blocked:PreDelete'],
    ['PreDelete succeeded: prune', { hookEntries: [ok('drain', 'PreDelete')] }, 'prune'],
    [
      'pruned: arm PostDelete',
      { hookEntries: [ok('drain', 'PreDelete')], objectEntries: 0 },
      'armHooks:PostDelete',
    ],
    [
      'PostDelete running',
      { hookEntries: [ok('drain', 'PreDelete'), entry('dns', 'PostDelete', R1, T1)], objectEntries: 0 },
      'waitHooks:PostDelete',
    ],
    [
      'PostDelete failed: blocked',
      { hookEntries: [ok('drain', 'PreDelete'), bad('dns', 'PostDelete')], objectEntries: 0 },
      'blocked:PostDelete',
    ],
    [
      'all done: finalize',
      { hookEntries: [ok('drain', 'PreDelete'), ok('dns', 'PostDelete')], objectEntries: 0 },
      'finalize',
    ],
    ['no render known: no hooks, prune', { render: undefined }, 'prune'],
    ['no render, nothing left: finalize', { render: undefined, objectEntries: 0 }, 'finalize'],
    [
      'no delete hooks: prune, then finalize',
      { render: { renderRef: R1, hooks: [hookObj('migrate', 'PreSync')] }, objectEntries: 0 },
      'finalize',
    ],
    [
      'a PreSync hook still running is not waited for (never armed for deletion)',
      {
        hookEntries: [
          ok('drain', 'PreDelete'),
          ok('dns', 'PostDelete'),
          entry('migrate', 'PreSync', R1, T0, { state: 'Running' }),
        ],
        objectEntries: 0,
      },
      'finalize',
    ],
    ['Orphan still runs PreDelete', { deletionPolicy: 'Orphan' }, 'armHooks:PreDelete'],
  ];
  for (const [name, over, want] of table)
    it(`${name} → ${want}`, () => assert.equal(kind(deletionPlan({ ...base, ...over })), want));

  it('the blocked message says what to do', () => {
    const s = deletionPlan({ ...base, hookEntries: [bad('drain', 'PreDelete')] });
    assert.equal(s.kind, 'blocked');
    if (s.kind !== 'blocked') return;
    assert.equal(s.hook, 'drain');
    assert.match(s.message, /PreDelete hook drain failed: Failed: exit 1/);
    assert.match(s.message, /nothing has been deleted yet/);
    assert.match(s.message, /force a sync/);
    assert.match(s.message, /convoy\.kumodo\.io\/finalizer/);
  });

  describe('forced sync re-runs only the failed phase', () => {
    const forcedAt = '2025-06-01T11:30:00Z';
    it('a failed PreDelete is armed again', () => {
      const s = deletionPlan({ ...base, hookEntries: [bad('drain', 'PreDelete')], forcedAt });
      assert.equal(kind(s), 'armHooks:PreDelete');
    });
    it('a failed PostDelete is armed again, the succeeded PreDelete is not', () => {
      const s = deletionPlan({
        ...base,
        objectEntries: 0,
        hookEntries: [ok('drain', 'PreDelete'), bad('dns', 'PostDelete')],
        forcedAt,
      });
      assert.equal(kind(s), 'armHooks:PostDelete');
    });
    it('a forced sync older than the failed run changes nothing', () => {
      const s = deletionPlan({
        ...base,
        hookEntries: [bad('drain', 'PreDelete')],
        forcedAt: '2025-06-01T10:00:00Z',
      });
      assert.equal(kind(s), 'blocked:PreDelete');
    });
  });

  it('finalize with Delete removes every recorded hook workload; with Orphan only what the policies say', () => {
    const entries: InventoryHook[] = [
      ok('drain', 'PreDelete'),
      ok('dns', 'PostDelete'),
      ok('migrate', 'PreSync'),
    ];
    const del = deletionPlan({ ...base, hookEntries: entries, objectEntries: 0 });
    assert.deepEqual(del.kind === 'finalize' && del.cleanup.map((r) => r.name).sort(), [
      hookWorkloadName('dns', R1),
      hookWorkloadName('drain', R1),
      hookWorkloadName('migrate', R1),
    ]);
    const withPolicy = [
      hookObj('drain', 'PreDelete', { policy: 'HookSucceeded' }),
      hookObj('dns', 'PostDelete'),
    ];
    const orphan = deletionPlan({
      ...base,
      render: { renderRef: R1, hooks: withPolicy },
      hookEntries: entries,
      objectEntries: 0,
      deletionPolicy: 'Orphan',
    });
    assert.deepEqual(orphan.kind === 'finalize' && orphan.cleanup.map((r) => r.name), [
      hookWorkloadName('drain', R1),
    ]);
  });
});
