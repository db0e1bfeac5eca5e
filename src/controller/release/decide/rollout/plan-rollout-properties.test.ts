// Properties of planRollout that hold for every input, startRolloutClock, and rollbackEligible.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { MIN, R1, R2, R3, T0 } from './fixtures.ts';
import { type PlanInput, planRollout, startRolloutClock } from './plan-rollout.ts';
import { D, healthy, pending, rollout, unhealthy } from './plan-rollout-fixtures.ts';
import { rollbackEligible } from './reasons.ts';
import { formatTime } from './time.ts';
import type { RolloutState } from './types.ts';

describe('startRolloutClock', () => {
  test('sets startedAt once, only on a Progressing rollout', () => {
    const open = rollout('Progressing', R2, null);
    const started = startRolloutClock(open, T0 + MIN);
    assert.equal(started.startedAt, formatTime(T0 + MIN));
    assert.equal(startRolloutClock(started, T0 + 2 * MIN), started);
    const failed = rollout('Failed', R2, null);
    assert.equal(startRolloutClock(failed, T0), failed);
  });
});

describe('planRollout invariants (property)', () => {
  const ref = fc.constantFrom(R1, R2, R3);
  const state = fc.constantFrom<RolloutState>('Progressing', 'Succeeded', 'Failed', 'RolledBack');
  const verdictArb = fc.constantFrom(healthy, unhealthy, pending);
  const priorArb = fc.option(
    fc.record({
      state,
      renderRef: ref,
      startedAt: fc.option(fc.integer({ min: 0, max: 3 * D }), { nil: null }),
    }),
    { nil: undefined },
  );
  const inputArb = fc.record({
    renderRef: ref,
    prior: priorArb,
    verdict: verdictArb,
    elapsed: fc.integer({ min: 0, max: 3 * D }),
    rollback: fc.constantFrom<'OnFailure' | 'Never' | undefined>('OnFailure', 'Never', undefined),
    lastHealthy: fc.option(ref, { nil: undefined }),
    forced: fc.boolean(),
    applied: fc.boolean(),
  });

  /** The PlanInput a generated case stands for. */
  const planInputOf = (x: typeof inputArb extends fc.Arbitrary<infer T> ? T : never): PlanInput => ({
    render: { renderRef: x.renderRef, revision: 'rev' },
    prior:
      x.prior &&
      rollout(x.prior.state, x.prior.renderRef, x.prior.startedAt === null ? null : T0 + x.prior.startedAt),
    verdict: x.verdict,
    now: T0 + x.elapsed,
    failurePolicy: { deadline: '10m', ...(x.rollback === undefined ? {} : { rollback: x.rollback }) },
    lastHealthy:
      x.lastHealthy === undefined
        ? undefined
        : { renderRef: x.lastHealthy, revision: 'rev-h', time: formatTime(T0 - D) },
    forcedSyncPending: x.forced,
    renderApplied: x.applied,
  });

  test('the next rollout is always of R; a new render always starts Progressing; rollback never targets R', () => {
    fc.assert(
      fc.property(inputArb, (x) => {
        const input = planInputOf(x);
        const prior = input.prior;
        const p = planRollout(input);
        assert.equal(p.next?.renderRef, x.renderRef);
        if (prior === undefined || prior.renderRef !== x.renderRef)
          assert.equal(p.next?.state, 'Progressing');
        if (p.action.kind === 'applyLastHealthy') {
          assert.equal(p.next?.state, 'RolledBack');
          // A RolledBack rollout of R held (holdRollback) was created eligible (the generator also makes priors
          // that cannot occur, e.g. RolledBack without lastHealthy); a fresh one must be.
          if (p.rule === 'rollBack') {
            assert.notEqual(x.lastHealthy, undefined);
            assert.notEqual(x.lastHealthy, x.renderRef);
          }
        }
        if (p.transition === undefined) assert.equal(p.next?.state, prior?.state);
      }),
    );
  });

  test('R5: planRollout performs no side effect: a frozen input, the same plan twice', () => {
    fc.assert(
      fc.property(inputArb, fc.integer({ min: 0, max: 3 * D }), (x, later) => {
        const input = deepFreeze(planInputOf(x));
        const before = structuredClone(input);
        const first = planRollout(input);
        // Another call in between, at another time, leaves nothing behind that changes the answer.
        planRollout({ ...input, now: T0 + later });
        assert.deepEqual(planRollout(input), first);
        assert.deepEqual(input, before);
      }),
    );
  });
});

/** Freezes every object of a plain value, so a write to the input throws (ESM modules run in strict mode). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

test('rollbackEligible: rollback not Never, a last healthy render, and not R itself', () => {
  const healthy = { renderRef: R1, revision: 'rev-1', time: formatTime(T0) };
  const rows: [string, Parameters<typeof rollbackEligible>, boolean][] = [
    ['eligible', [{ deadline: '5m', rollback: 'OnFailure' }, healthy, R2], true],
    ['rollback unset', [{ deadline: '5m' }, healthy, R2], true],
    ['Never', [{ deadline: '5m', rollback: 'Never' }, healthy, R2], false],
    ['no last healthy', [{ deadline: '5m' }, undefined, R2], false],
    ['last healthy is R', [{ deadline: '5m' }, healthy, R1], false],
  ];
  for (const [name, args, want] of rows) assert.equal(rollbackEligible(...args), want, name);
});
