// Table tests of nextWakeUp (docs/design.md#rollout-wake-ups), the inventory.HealthChanged watch filter
// and healthSettled, which puts a wake-up in the work queue's finish lane.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { healthSettled } from '../../../../api/health-wake.ts';
import { entry, MIN, obj, R1, R2, T0 } from './fixtures.ts';
import { formatTime } from './time.ts';
import type { InventoryEntry, Rollout } from './types.ts';
import { healthChanged, nextWakeUp, type WakeUpInput, waveTimeoutAt } from './wake-up.ts';

function rollout(state: Rollout['state'], startedAt: number | null = T0): Rollout {
  const r: Rollout = { state, renderRef: R2, revision: 'rev-2', reason: 'X', message: '' };
  return startedAt === null ? r : { ...r, startedAt: formatTime(startedAt) };
}

function wake(over: Partial<WakeUpInput>): WakeUpInput {
  return {
    rollout: rollout('Progressing'),
    failurePolicy: { deadline: '10m', rollback: 'OnFailure' },
    pinned: false,
    deleting: false,
    interval: '5m',
    now: T0 + 7 * MIN,
    ...over,
  };
}

const deadline = (ms: number) => ({ kind: 'requeue', afterMs: ms, reason: 'deadline' }) as const;
const interval = (ms: number) => ({ kind: 'requeue', afterMs: ms, reason: 'interval' }) as const;
const none = { kind: 'none' } as const;

describe('nextWakeUp (docs/design.md#rollout-wake-ups)', () => {
  const rows: [string, Partial<WakeUpInput>, ReturnType<typeof nextWakeUp>][] = [
    ['Progressing, deadline nearer than the interval', {}, deadline(3 * MIN)],
    ['Progressing, interval nearer than the deadline', { now: T0 + MIN }, interval(5 * MIN)],
    ['Progressing, deadline and interval equal', { now: T0 + 5 * MIN }, interval(5 * MIN)],
    ['Progressing, interval unset: the deadline still wakes it', { interval: undefined }, deadline(3 * MIN)],
    ['Progressing, interval 0: the deadline still wakes it', { interval: '0' }, deadline(3 * MIN)],
    ['Progressing, deadline passed', { now: T0 + 11 * MIN }, interval(5 * MIN)],
    ['Progressing, deadline passed, no interval', { now: T0 + 11 * MIN, interval: '0' }, none],
    [
      'Progressing, no clock yet (held by a gate)',
      { rollout: rollout('Progressing', null) },
      interval(5 * MIN),
    ],
    ['Progressing but pinned', { pinned: true }, interval(5 * MIN)],
    ['Progressing but deleting', { deleting: true }, interval(5 * MIN)],
    ['Progressing but no failurePolicy', { failurePolicy: undefined }, interval(5 * MIN)],
    ['Failed: interval only', { rollout: rollout('Failed') }, interval(5 * MIN)],
    ['RolledBack: interval only', { rollout: rollout('RolledBack') }, interval(5 * MIN)],
    ['Succeeded: interval only', { rollout: rollout('Succeeded') }, interval(5 * MIN)],
    ['RolledBack, interval 0: none', { rollout: rollout('RolledBack'), interval: '0' }, none],
    ['no rollout, interval unset: none', { rollout: undefined, interval: undefined }, none],
    [
      'Progressing, a wave timeout before the deadline: just after the wave timeout',
      { waveTimeoutAt: T0 + 8 * MIN, interval: '0' },
      { kind: 'requeue', afterMs: MIN + 1000, reason: 'waveTimeout' },
    ],
    [
      'Progressing, a wave timeout after the deadline: the deadline',
      { waveTimeoutAt: T0 + 20 * MIN },
      deadline(3 * MIN),
    ],
    [
      'Progressing, a wave timeout already passed: the deadline',
      { waveTimeoutAt: T0 + 5 * MIN },
      deadline(3 * MIN),
    ],
    [
      'Progressing, wave timeout and deadline passed, no interval: none',
      { waveTimeoutAt: T0, now: T0 + 11 * MIN, interval: '0' },
      none,
    ],
    [
      'pinned: no wave timeout wake-up (a pinned wave never times out)',
      { waveTimeoutAt: T0 + 8 * MIN, pinned: true, interval: '0' },
      none,
    ],
    [
      'Failed: no wave timeout wake-up',
      { waveTimeoutAt: T0 + 8 * MIN, rollout: rollout('Failed'), interval: '0' },
      none,
    ],
  ];
  for (const [name, over, want] of rows) {
    test(name, () => assert.deepEqual(nextWakeUp(wake(over)), want));
  }
});

describe('waveTimeoutAt', () => {
  const at = (m: number) => formatTime(T0 + m * MIN);
  const spec = [
    { wave: 1, healthStrategy: 'WaitPrevious', timeout: '4m' },
    { wave: 2, healthStrategy: 'WaitPrevious' },
    { wave: 3, healthStrategy: 'WaitPrevious', timeout: '1m' },
  ];
  const rows: [string, Parameters<typeof waveTimeoutAt>[0], number | undefined][] = [
    [
      'wave 0 applied: wave 1 times out 4m after it',
      [{ renderRef: R2, wave: 0, startedAt: at(0) }],
      T0 + 4 * MIN,
    ],
    ['only another render applied', [{ renderRef: R1, wave: 0, startedAt: at(0) }], undefined],
    [
      'the next waiting wave has no timeout',
      [
        { renderRef: R2, wave: 0, startedAt: at(0) },
        { renderRef: R2, wave: 1, startedAt: at(1) },
      ],
      undefined,
    ],
    [
      'from the highest applied wave',
      [
        { renderRef: R2, wave: 2, startedAt: at(5) },
        { renderRef: R2, wave: 0, startedAt: at(0) },
      ],
      T0 + 6 * MIN,
    ],
    ['every wave applied', [{ renderRef: R2, wave: 3, startedAt: at(5) }], undefined],
    ['nothing applied', undefined, undefined],
  ];
  for (const [name, waves, want] of rows) {
    test(name, () => assert.equal(waveTimeoutAt(waves, spec, R2), want));
  }
});

describe('healthChanged (inventory.HealthChanged)', () => {
  const a = entry(obj('a'), R2, 'Progressing');
  const b = entry(obj('b'), R2, 'Healthy');
  const rows: [
    string,
    readonly InventoryEntry[] | undefined,
    readonly InventoryEntry[] | undefined,
    boolean,
  ][] = [
    ['identical', [a, b], [a, b], false],
    ['order only', [a, b], [b, a], false],
    ['state changed', [a, b], [{ ...a, state: 'Healthy' }, b], true],
    ['assessedRenderRef changed', [a, b], [a, { ...b, assessedRenderRef: R1 }], true],
    ['entry count changed', [a, b], [a], true],
    ['same count, other key', [a, b], [a, entry(obj('c'), R2, 'Healthy')], true],
    [
      'only controller fields changed (renderRef, wave)',
      [a, b],
      [{ ...a, renderRef: R1, wave: 3 }, b],
      false,
    ],
    [
      'only message and firstUnhealthy changed',
      [a],
      [{ ...a, message: 'x', firstUnhealthy: formatTime(T0) }],
      false,
    ],
    ['inventory created', undefined, [a], true],
    ['inventory deleted', [a], undefined, true],
    ['both empty', undefined, [], false],
  ];
  for (const [name, before, after, want] of rows) {
    test(name, () => {
      const wrap = (e: readonly InventoryEntry[] | undefined) =>
        e === undefined ? undefined : { entries: e };
      assert.equal(healthChanged(wrap(before), wrap(after)), want);
    });
  }
});

describe('healthChanged: the verification wakes only where verdict(R) reads it differently', () => {
  const v = (phase: 'Running' | 'Passed' | 'Failed' | 'Inconclusive', renderRef = R2) => ({
    verification: { renderRef, startedAt: formatTime(T0), phase },
  });
  const rows: [string, ReturnType<typeof v> | object, ReturnType<typeof v> | object, boolean][] = [
    ['a soak starts (Running): no verdict changes', {}, v('Running'), false],
    ['measurements only (same phase)', v('Running'), v('Running'), false],
    ['Passed', v('Running'), v('Passed'), true],
    ['Failed', v('Running'), v('Failed'), true],
    ['Inconclusive: the hold is read', v('Running'), v('Inconclusive'), true],
    ['Running again after Inconclusive: the hold ends', v('Inconclusive'), v('Running'), true],
    ['a new render starts its soak after the old one passed', v('Passed', R1), v('Running'), false],
    ['a new render fails at once', v('Passed', R1), v('Failed'), true],
  ];
  for (const [name, before, after, want] of rows) {
    test(name, () => assert.equal(healthChanged(before, after), want));
  }
});

describe('healthSettled: every entry Healthy for its own render, no verification measuring', () => {
  const a = entry(obj('a'), R2, 'Healthy');
  const b = entry(obj('b'), R2, 'Healthy');
  const rows: [string, Parameters<typeof healthSettled>[0], boolean][] = [
    ['all Healthy', { entries: [a, b] }, true],
    ['one Progressing', { entries: [a, { ...b, state: 'Progressing' }] }, false],
    ['one assessed for an older render', { entries: [a, { ...b, assessedRenderRef: R1 }] }, false],
    ['no entries', { entries: [] }, false],
    ['no inventory', undefined, false],
    [
      'a soak still running',
      { entries: [a, b], verification: { renderRef: R2, startedAt: '', phase: 'Running', checks: [] } },
      false,
    ],
    [
      'a verification that passed',
      { entries: [a, b], verification: { renderRef: R2, startedAt: '', phase: 'Passed', checks: [] } },
      true,
    ],
  ];
  for (const [name, inv, want] of rows) test(name, () => assert.equal(healthSettled(inv), want));
});
