// Table tests of nextWakeUp (DESIGN 4.6) and the inventory.HealthChanged watch filter.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { entry, MIN, obj, R1, R2, T0 } from './fixtures.ts';
import { formatTime } from './time.ts';
import type { InventoryEntry, Rollout } from './types.ts';
import { healthChanged, nextWakeUp, type WakeUpInput } from './wake-up.ts';

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

describe('nextWakeUp (DESIGN 4.6)', () => {
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
  ];
  for (const [name, over, want] of rows) {
    test(name, () => assert.deepEqual(nextWakeUp(wake(over)), want));
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
