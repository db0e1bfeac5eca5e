import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InventoryHook } from '../../../../api/types.ts';
import { hookDefs, hookWorkloadName } from './defs.ts';
import { entry, hookObj, NOW, R1, R2 } from './fixtures.ts';
import {
  armedFor,
  armingCreatedAt,
  finishedState,
  type HookPhaseDecision,
  hookInventoryEntry,
  type PlanHookPhaseInput,
  planHookPhase,
} from './plan.ts';

const T0 = '2025-06-01T11:00:00Z';
const T1 = '2025-06-01T11:05:00Z';
const presync = [hookObj('migrate', 'PreSync'), hookObj('notify', 'PostSync')];

function plan(over: Partial<PlanHookPhaseInput>): HookPhaseDecision {
  return planHookPhase({ phase: 'PreSync', hooks: presync, renderRef: R1, entries: [], now: NOW, ...over });
}

describe('planHookPhase', () => {
  it('none when the render has no hooks of the phase', () => {
    assert.deepEqual(plan({ phase: 'SyncFail' }), { kind: 'none' });
    assert.deepEqual(plan({ hooks: [] }), { kind: 'none' });
  });

  it('arms a hook the inventory does not know, at now (whole seconds)', () => {
    const d = plan({ now: NOW + 750 });
    assert.equal(d.kind, 'arm');
    if (d.kind !== 'arm') return;
    assert.equal(d.hooks.length, 1);
    const a = d.hooks[0];
    assert.equal(a?.workloadName, hookWorkloadName('migrate', R1));
    assert.equal(a?.createdAt, '2025-06-01T12:00:00Z');
    assert.equal(a?.rearm, false);
    assert.equal(a?.deleteFirst, undefined);
    assert.deepEqual(a && hookInventoryEntry(a), {
      name: 'migrate',
      phase: 'PreSync',
      kind: 'Job',
      renderRef: R1,
      workloadName: hookWorkloadName('migrate', R1),
      createdAt: '2025-06-01T12:00:00Z',
      timeout: '5m',
    });
  });

  it('arms again for a new render, after the old result, deleting the old workload first (default policy)', () => {
    // The observer's clock is ahead: the old run finished "after" the controller's now.
    const old = entry('migrate', 'PreSync', R2, T0, {
      state: 'Succeeded',
      finishedAt: '2025-06-01T12:00:30Z',
    });
    const d = plan({ entries: [old] });
    assert.equal(d.kind, 'arm');
    if (d.kind !== 'arm') return;
    assert.equal(d.hooks[0]?.createdAt, '2025-06-01T12:00:31Z');
    assert.deepEqual(d.hooks[0]?.deleteFirst, {
      kind: 'Job',
      namespace: 'app',
      name: hookWorkloadName('migrate', R2),
    });
    assert.equal(d.hooks[0]?.previous, old);
  });

  it('keeps the old workload when the policy has no BeforeHookCreation', () => {
    const hooks = [hookObj('migrate', 'PreSync', { policy: 'HookFailed' })];
    const old = entry('migrate', 'PreSync', R2, T0, { state: 'Succeeded', finishedAt: T1 });
    const d = plan({ hooks, entries: [old] });
    assert.equal(d.kind === 'arm' && d.hooks[0]?.deleteFirst, undefined);
  });

  /** The migrate PreSync hook's entry, armed for R1 at T0 unless `at` says otherwise. */
  const migrate = (
    extra: Partial<InventoryHook> = {},
    at: { renderRef?: string; createdAt?: string; phase?: 'PreSync' | 'PostSync'; kind?: 'Job' | 'Pod' } = {},
  ) => entry('migrate', at.phase ?? 'PreSync', at.renderRef ?? R1, at.createdAt ?? T0, extra, at.kind);
  const succeeded = { state: 'Succeeded', finishedAt: T1 } as const;
  const table: [string, InventoryHook, HookPhaseDecision['kind']][] = [
    ['armed, no state yet', migrate(), 'waiting'],
    ['Running', migrate({ state: 'Running' }), 'waiting'],
    ['Succeeded', migrate(succeeded), 'succeeded'],
    ['Succeeded the same second it was armed', migrate({ ...succeeded, finishedAt: T0 }), 'succeeded'],
    ['Failed', migrate({ state: 'Failed', reason: 'Failed', finishedAt: T1 }), 'failed'],
    // re-armed: the state is the previous run's until the observer polls the new workload
    ['re-armed, previous Succeeded', migrate({ ...succeeded, finishedAt: T0 }, { createdAt: T1 }), 'waiting'],
    ['re-armed, previous Failed', migrate({ state: 'Failed', finishedAt: T0 }, { createdAt: T1 }), 'waiting'],
    ['entry of another render', migrate(succeeded, { renderRef: R2 }), 'arm'],
    ['entry of another phase', migrate(succeeded, { phase: 'PostSync' }), 'arm'],
    ['entry of another kind', migrate(succeeded, { kind: 'Pod' }), 'arm'],
    ['entry without createdAt', { ...migrate(), createdAt: undefined }, 'arm'],
  ];
  for (const [name, e, want] of table) {
    it(`${name} → ${want}`, () => assert.equal(plan({ entries: [e] }).kind, want));
  }

  it('failed carries the hook, reason and the observer message', () => {
    const e = entry('migrate', 'PreSync', R1, T0, {
      state: 'Failed',
      reason: 'Timeout',
      message: 'did not finish within 300s',
      finishedAt: T1,
    });
    assert.deepEqual(plan({ entries: [e] }), {
      kind: 'failed',
      hook: 'migrate',
      reason: 'Timeout',
      message: 'PreSync hook migrate failed: Timeout: did not finish within 300s',
      cleanup: [],
    });
  });

  it('waits for every hook of the phase; succeeds only when all have', () => {
    const hooks = [hookObj('a', 'PreSync'), hookObj('b', 'PreSync')];
    const a = entry('a', 'PreSync', R1, T0, { state: 'Succeeded', finishedAt: T1 });
    const b = entry('b', 'PreSync', R1, T0, { state: 'Running' });
    assert.deepEqual(plan({ hooks, entries: [a, b] }), { kind: 'waiting', running: ['b'], cleanup: [] });
    const bDone = { ...b, state: 'Succeeded' as const, finishedAt: T1 };
    assert.deepEqual(plan({ hooks, entries: [a, bDone] }), { kind: 'succeeded', cleanup: [] });
  });

  it('arms only the hooks a crashed pass left unarmed', () => {
    const hooks = [hookObj('a', 'PreSync'), hookObj('b', 'PreSync')];
    const a = entry('a', 'PreSync', R1, T0);
    const d = plan({ hooks, entries: [a] });
    assert.equal(d.kind, 'arm');
    assert.deepEqual(d.kind === 'arm' && d.hooks.map((h) => h.hook.name), ['b']);
  });

  it('a failed hook fails the phase before anything else is armed', () => {
    const hooks = [hookObj('a', 'PreSync'), hookObj('b', 'PreSync')];
    const a = entry('a', 'PreSync', R1, T0, { state: 'Failed', finishedAt: T1 });
    assert.equal(plan({ hooks, entries: [a] }).kind, 'failed');
  });

  describe('forced sync (forcedAt)', () => {
    const done = entry('migrate', 'PreSync', R1, T0, { state: 'Succeeded', finishedAt: T1 });
    it('re-arms a hook armed before the forced sync, replacing its same-named workload', () => {
      const d = plan({ entries: [done], forcedAt: '2025-06-01T11:59:00Z' });
      assert.equal(d.kind, 'arm');
      if (d.kind !== 'arm') return;
      assert.equal(d.hooks[0]?.rearm, true);
      assert.equal(d.hooks[0]?.deleteFirst, undefined);
      assert.equal(d.hooks[0]?.createdAt, '2025-06-01T12:00:00Z');
    });
    it('re-arms a failed hook', () => {
      const failed = { ...done, state: 'Failed' as const };
      assert.equal(plan({ entries: [failed], forcedAt: '2025-06-01T11:59:00Z' }).kind, 'arm');
    });
    it('a forced sync older than the arming changes nothing', () => {
      assert.equal(plan({ entries: [done], forcedAt: '2025-06-01T10:00:00Z' }).kind, 'succeeded');
    });
    it('the new arming is not older than the forced sync, even with the controller clock behind', () => {
      const d = plan({ entries: [done], forcedAt: '2025-06-01T12:00:05.300Z' });
      assert.equal(d.kind === 'arm' && d.hooks[0]?.createdAt, '2025-06-01T12:00:06Z');
    });
    it('an unparsable forcedAt is ignored', () => {
      assert.equal(plan({ entries: [done], forcedAt: 'yesterday' }).kind, 'succeeded');
    });
  });

  it('fails on hook names the inventory cannot key', () => {
    const hooks = [hookObj('x', 'PreSync'), hookObj('x', 'PostSync', { kind: 'Pod' })];
    const d = plan({ hooks });
    assert.equal(d.kind, 'failed');
    assert.equal(d.kind === 'failed' && d.reason, 'DuplicateHookName');
  });

  it('lists finished workloads their policy deletes', () => {
    const hooks = [
      hookObj('a', 'PreSync', { policy: 'HookSucceeded' }),
      hookObj('b', 'PreSync', { policy: 'HookFailed' }),
    ];
    const a = entry('a', 'PreSync', R1, T0, { state: 'Succeeded', finishedAt: T1 });
    const b = entry('b', 'PreSync', R1, T0, { state: 'Succeeded', finishedAt: T1 });
    assert.deepEqual(plan({ hooks, entries: [a, b] }), {
      kind: 'succeeded',
      cleanup: [{ kind: 'Job', namespace: 'app', name: hookWorkloadName('a', R1) }],
    });
  });
});

describe('armingCreatedAt', () => {
  const table: [string, Partial<InventoryHook> | undefined, string | undefined, string][] = [
    ['no previous entry', undefined, undefined, '2025-06-01T12:00:00Z'],
    ['previous finished long ago', { createdAt: T0, finishedAt: T1 }, undefined, '2025-06-01T12:00:00Z'],
    [
      'previous finished "later" by the observer clock',
      { createdAt: T0, finishedAt: '2025-06-01T12:00:00Z' },
      undefined,
      '2025-06-01T12:00:01Z',
    ],
    [
      'previous armed in this very second',
      { createdAt: '2025-06-01T12:00:00Z' },
      undefined,
      '2025-06-01T12:00:01Z',
    ],
    ['forced sync ahead of the controller clock', undefined, '2025-06-01T12:00:09Z', '2025-06-01T12:00:09Z'],
  ];
  for (const [name, prev, forced, want] of table) {
    it(name, () => {
      const previous = prev === undefined ? undefined : { name: 'x', ...prev };
      assert.equal(armingCreatedAt(previous, NOW + 400, forced), want);
    });
  }
});

describe('finishedState and armedFor', () => {
  const [def] = hookDefs([hookObj('migrate', 'PreSync')]);
  it('finishedAt ≥ createdAt compares times, not strings', () => {
    // same instant, different spelling
    const e = entry('migrate', 'PreSync', R1, '2025-06-01T12:00:00Z', {
      state: 'Succeeded',
      finishedAt: '2025-06-01T14:00:00+02:00',
    });
    assert.equal(finishedState(e), 'Succeeded');
  });
  it('Running is never finished', () => {
    assert.equal(
      finishedState(entry('m', 'PreSync', R1, T0, { state: 'Running', finishedAt: T1 })),
      undefined,
    );
  });
  it('armedFor needs the workload name of this render', () => {
    assert.ok(def);
    if (def === undefined) return;
    const e = entry('migrate', 'PreSync', R1, T0);
    assert.equal(armedFor(e, def, R1), true);
    assert.equal(armedFor({ ...e, workloadName: 'migrate-old' }, def, R1), false);
  });
});

describe('planHookPhase: weights, as Helm runs hooks', () => {
  const weighted = [
    hookObj('rbac-check', 'PreSync', { weight: '-5' }),
    hookObj('migrate', 'PreSync', { weight: '0' }),
    hookObj('seed', 'PreSync'),
    hookObj('warm', 'PreSync', { weight: '10' }),
  ];
  const at = '2025-06-01T11:00:00Z';
  const done = (name: string) => entry(name, 'PreSync', R1, at, { state: 'Succeeded', finishedAt: T1 });
  const running = (name: string) => entry(name, 'PreSync', R1, at);
  const armed = (d: HookPhaseDecision) => (d.kind === 'arm' ? d.hooks.map((h) => h.hook.name) : d.kind);
  const rows: [string, InventoryHook[], string[] | string][] = [
    ['nothing run: only the lowest weight is armed', [], ['rbac-check']],
    ['the lowest weight running: wait, nothing else armed', [running('rbac-check')], 'waiting'],
    [
      'the lowest weight succeeded: the next weight, all of it at once',
      [done('rbac-check')],
      ['migrate', 'seed'],
    ],
    [
      'every lower weight succeeded: the highest',
      [done('rbac-check'), done('migrate'), done('seed')],
      ['warm'],
    ],
    [
      'all succeeded: the phase succeeded',
      [done('rbac-check'), done('migrate'), done('seed'), done('warm')],
      'succeeded',
    ],
  ];
  for (const [name, entries, want] of rows)
    it(name, () => assert.deepEqual(armed(plan({ hooks: weighted, entries })), want));

  it('a failed weight fails the phase and the higher weights never run', () => {
    const failed = entry('rbac-check', 'PreSync', R1, at, {
      state: 'Failed',
      reason: 'BackoffLimitExceeded',
      finishedAt: T1,
    });
    const d = plan({ hooks: weighted, entries: [failed] });
    assert.equal(d.kind, 'failed');
    assert.equal(d.kind === 'failed' ? d.hook : '', 'rbac-check');
  });
});
