// Table tests of assembleStatus: each bullet of docs/design.md#status-assembly, and a steady reconcile that
// must produce an identical status.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type AssembleInput,
  assembleStatus,
  type OutcomeAttempt,
  type RolloutStatusFields,
} from './assemble-status.ts';
import { MIN, R1, R2, T0 } from './fixtures.ts';
import { formatTime } from './time.ts';
import type { Rollout } from './types.ts';
import type { Verdict } from './verdict.ts';

const healthy: Verdict = { kind: 'Healthy', reason: 'Healthy', message: 'all healthy' };
const unhealthy: Verdict = { kind: 'Unhealthy', reason: 'ObjectsUnhealthy', message: 'b Degraded' };

const at = (ms: number) => formatTime(ms);
const stamp1 = { renderRef: R1, revision: 'rev-1', time: at(T0 - 60 * MIN) };
const attempted1 = { ...stamp1, applied: true, reason: 'Synced', message: 'applied' };

function attempt(renderRef: string, time: number, applied = true, reason = 'Synced'): OutcomeAttempt {
  return {
    kind: 'attempt',
    renderRef,
    revision: `rev-${renderRef.slice(7, 8)}`,
    time: at(time),
    applied,
    reason,
    message: reason,
  };
}

function rollout(state: Rollout['state'], renderRef = R2): Rollout {
  return { state, renderRef, revision: 'rev-2', startedAt: at(T0), reason: 'X', message: `${state} message` };
}

const prior: RolloutStatusFields = {
  lastAttempted: attempted1,
  lastSuccessful: stamp1,
  lastHealthy: stamp1,
  rollout: rollout('Succeeded', R1),
  conditions: [
    {
      type: 'RolloutSucceeded',
      status: 'True',
      reason: 'Succeeded',
      message: 'Succeeded message',
      lastTransitionTime: at(T0 - 50 * MIN),
      observedGeneration: 1,
    },
  ],
};

function input(over: Partial<AssembleInput>): AssembleInput {
  return {
    prior,
    outcome: { attempt: { kind: 'none' }, rollout: { kind: 'none' } },
    health: undefined,
    failurePolicySet: true,
    forcedSyncPendingAt: undefined,
    generation: 1,
    now: T0,
    ...over,
  };
}

describe('assembleStatus', () => {
  test('lastAttempted is the outcome attempt; lastSuccessful changes only when applied is true', () => {
    const failed = assembleStatus(
      input({ outcome: { attempt: attempt(R2, T0, false, 'DryRunFailed'), rollout: { kind: 'none' } } }),
    );
    assert.deepEqual(failed.lastAttempted, {
      renderRef: R2,
      revision: 'rev-2',
      time: at(T0),
      applied: false,
      reason: 'DryRunFailed',
      message: 'DryRunFailed',
    });
    assert.equal(failed.lastSuccessful, stamp1);

    const applied = assembleStatus(
      input({ outcome: { attempt: attempt(R2, T0), rollout: { kind: 'none' } } }),
    );
    assert.deepEqual(applied.lastSuccessful, { renderRef: R2, revision: 'rev-2', time: at(T0) });
  });

  test('no attempt (render error, a gate): lastAttempted and lastSuccessful keep their values', () => {
    const s = assembleStatus(input({}));
    assert.equal(s.lastAttempted, prior.lastAttempted);
    assert.equal(s.lastSuccessful, prior.lastSuccessful);
  });

  test('a rollback applied by applyLastHealthy shows in lastAttempted and lastSuccessful', () => {
    const p = { ...prior, lastAttempted: { ...attempted1, renderRef: R2, revision: 'rev-2' } };
    const s = assembleStatus(
      input({
        prior: p,
        outcome: {
          attempt: attempt(R1, T0, true, 'RolledBack'),
          rollout: { kind: 'rollout', rollout: rollout('RolledBack') },
        },
      }),
    );
    assert.equal(s.lastAttempted?.renderRef, R1);
    assert.equal(s.lastAttempted?.reason, 'RolledBack');
    assert.equal(s.lastSuccessful, stamp1, 'same render as before: its time does not move');
  });

  test('lastHealthy: the attempt’s render when its verdict is Healthy — also without a failurePolicy', () => {
    for (const failurePolicySet of [true, false]) {
      const s = assembleStatus(
        input({
          failurePolicySet,
          outcome: { attempt: attempt(R2, T0 - MIN), rollout: { kind: 'none' } },
          health: { renderRef: R2, verdict: healthy },
        }),
      );
      assert.deepEqual(
        s.lastHealthy,
        { renderRef: R2, revision: 'rev-2', time: at(T0) },
        String(failurePolicySet),
      );
    }
  });

  test('lastHealthy: without an attempt in the outcome, the render of status.lastAttempted counts', () => {
    const p = { ...prior, lastAttempted: { ...attempted1, renderRef: R2, revision: 'rev-2' } };
    const s = assembleStatus(input({ prior: p, health: { renderRef: R2, verdict: healthy } }));
    assert.equal(s.lastHealthy?.renderRef, R2);
  });

  test('lastHealthy: Succeeded(R) on planRollout’s Healthy verdict is R, even with no attempt of R', () => {
    // R's objects recorded (a crash lost the status write of its attempt), then a dry run failed.
    const rows: [string, Partial<AssembleInput>, string][] = [
      [
        'Succeeded on a Healthy verdict',
        {
          outcome: { attempt: { kind: 'none' }, rollout: { kind: 'rollout', rollout: rollout('Succeeded') } },
          planned: { renderRef: R2, revision: 'rev-2', verdict: healthy },
        },
        R2,
      ],
      [
        'Progressing on an Unhealthy verdict',
        {
          outcome: {
            attempt: { kind: 'none' },
            rollout: { kind: 'rollout', rollout: rollout('Progressing') },
          },
          planned: { renderRef: R2, revision: 'rev-2', verdict: unhealthy },
        },
        R1,
      ],
      [
        'Succeeded of another render (a pin froze it)',
        {
          outcome: {
            attempt: { kind: 'none' },
            rollout: { kind: 'rollout', rollout: rollout('Succeeded', R1) },
          },
          planned: { renderRef: R2, revision: 'rev-2', verdict: healthy },
        },
        R1,
      ],
    ];
    for (const [name, over, want] of rows)
      assert.equal(assembleStatus(input(over)).lastHealthy?.renderRef, want, name);
  });

  test('lastHealthy keeps its value: unhealthy, a verdict of another render, a failed reconcile', () => {
    const rows: [string, Partial<AssembleInput>][] = [
      [
        'unhealthy',
        {
          outcome: { attempt: attempt(R2, T0), rollout: { kind: 'none' } },
          health: { renderRef: R2, verdict: unhealthy },
        },
      ],
      [
        'healthy verdict of another render',
        {
          outcome: { attempt: attempt(R2, T0), rollout: { kind: 'none' } },
          health: { renderRef: R1, verdict: healthy },
        },
      ],
      [
        'failed attempt, no verdict',
        { outcome: { attempt: attempt(R2, T0, false, 'DryRunFailed'), rollout: { kind: 'none' } } },
      ],
      ['nothing at all', {}],
    ];
    for (const [name, over] of rows) assert.equal(assembleStatus(input(over)).lastHealthy, stamp1, name);
  });

  test('rollout: the outcome’s when it has one', () => {
    const r = rollout('Progressing');
    assert.equal(
      assembleStatus(
        input({ outcome: { attempt: { kind: 'none' }, rollout: { kind: 'rollout', rollout: r } } }),
      ).rollout,
      r,
    );
  });

  test('rollout: kept when the outcome has none and failurePolicy is set (a RolledBack state survives an error)', () => {
    const rolledBack = rollout('RolledBack');
    const s = assembleStatus(input({ prior: { ...prior, rollout: rolledBack } }));
    assert.equal(s.rollout, rolledBack);
  });

  test('rollout: removed without a failurePolicy, whatever the outcome says', () => {
    for (const r of [
      { kind: 'none' } as const,
      { kind: 'rollout', rollout: rollout('Progressing') } as const,
    ]) {
      const s = assembleStatus(
        input({ failurePolicySet: false, outcome: { attempt: { kind: 'none' }, rollout: r } }),
      );
      assert.equal('rollout' in s, false, r.kind);
    }
  });

  test('RolloutSucceeded follows the rollout state: True, False, False, Unknown', () => {
    const rows = [
      ['Succeeded', 'True'],
      ['Failed', 'False'],
      ['RolledBack', 'False'],
      ['Progressing', 'Unknown'],
    ] as const;
    for (const [state, status] of rows) {
      const s = assembleStatus(
        input({
          generation: 2,
          outcome: { attempt: { kind: 'none' }, rollout: { kind: 'rollout', rollout: rollout(state) } },
        }),
      );
      const c = s.conditions?.find((x) => x.type === 'RolloutSucceeded');
      assert.deepEqual(
        c && { status: c.status, reason: c.reason, message: c.message, gen: c.observedGeneration },
        { status, reason: state, message: `${state} message`, gen: 2 },
        state,
      );
      // The condition was True before: only a change of status moves lastTransitionTime.
      assert.equal(c?.lastTransitionTime, status === 'True' ? at(T0 - 50 * MIN) : at(T0), state);
    }
  });

  test('without a rollout the condition does not change', () => {
    const s = assembleStatus(input({ failurePolicySet: false, now: T0 + 99 * MIN }));
    assert.equal(s.conditions, prior.conditions);
    const none = assembleStatus(input({ prior: {}, failurePolicySet: false }));
    assert.equal('conditions' in none, false);
  });

  test('lastHandledForceSyncAt: written when a forced sync is pending, also when the reconcile failed', () => {
    const forceAt = at(T0 - 5000);
    const s = assembleStatus(input({ forcedSyncPendingAt: forceAt }));
    assert.equal(s.lastHandledForceSyncAt, forceAt);
    const later = assembleStatus(input({ prior: s }));
    assert.equal(later.lastHandledForceSyncAt, forceAt, 'kept when no forced sync is pending');
  });

  test('a steady reconcile produces an identical status', () => {
    // Reconcile 1 opens R2; reconcile 2 and 3 repeat the same attempt and rollout later on.
    const progressing = rollout('Progressing');
    const step = (p: RolloutStatusFields, now: number, r: Rollout, verdict: Verdict) =>
      assembleStatus(
        input({
          prior: p,
          now,
          outcome: { attempt: attempt(R2, now), rollout: { kind: 'rollout', rollout: r } },
          health: { renderRef: R2, verdict },
        }),
      );
    const s1 = step(prior, T0, progressing, unhealthy);
    const s2 = step(s1, T0 + 5 * MIN, progressing, unhealthy);
    assert.deepEqual(s2, s1);
    assert.equal(s2.lastAttempted?.time, at(T0));

    // And once healthy and Succeeded, still steady.
    const succeeded = { ...progressing, state: 'Succeeded' as const, finishedAt: at(T0 + 6 * MIN) };
    const done = (p: RolloutStatusFields, now: number) => step(p, now, succeeded, healthy);
    const s3 = done(s2, T0 + 6 * MIN);
    assert.equal(s3.lastHealthy?.time, at(T0 + 6 * MIN));
    const s4 = done(s3, T0 + 60 * MIN);
    assert.deepEqual(s4, s3);
  });
});
