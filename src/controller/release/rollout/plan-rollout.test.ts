// Table tests of planRollout, rule by rule of docs/design.md#rollout-rules with first-match cases, the clock of a held render,
// and properties that hold for every input.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { MIN, R1, R2, R3, T0 } from './fixtures.ts';
import { type PlanInput, planRollout, startRolloutClock } from './plan-rollout.ts';
import { rollbackEligible } from './reasons.ts';
import { formatTime } from './time.ts';
import type { Rollout, RolloutState } from './types.ts';
import type { Verdict } from './verdict.ts';

const healthy: Verdict = { kind: 'Healthy', reason: 'Healthy', message: 'all healthy' };
const unhealthy: Verdict = {
  kind: 'Unhealthy',
  reason: 'ObjectsUnhealthy',
  message: '1 of 1 objects not healthy',
};
const pending: Verdict = { kind: 'Pending', reason: 'NotYetAssessed', message: 'not yet assessed' };
const D = 10 * MIN;

/** startedAt null: a rollout whose clock has not started. */
function rollout(state: RolloutState, renderRef: string, startedAt: number | null = T0): Rollout {
  const r: Rollout = {
    state,
    renderRef,
    revision: `rev-${renderRef.slice(7, 8)}`,
    reason: 'X',
    message: 'm',
  };
  return startedAt === null ? r : { ...r, startedAt: formatTime(startedAt) };
}

function plan(over: Partial<PlanInput>): PlanInput {
  return {
    render: { renderRef: R2, revision: 'rev-2' },
    prior: rollout('Progressing', R2),
    verdict: pending,
    now: T0 + MIN,
    failurePolicy: { deadline: '10m', rollback: 'OnFailure' },
    lastHealthy: { renderRef: R1, revision: 'rev-1', time: formatTime(T0 - 60 * MIN) },
    forcedSyncPending: false,
    renderApplied: true,
    ...over,
  };
}

describe('planRollout (docs/design.md#rollout-rules, first matching rule)', () => {
  test('no failurePolicy: no rollout and applySource, whatever the prior says', () => {
    for (const prior of [undefined, rollout('RolledBack', R2), rollout('Progressing', R2)]) {
      const p = planRollout(plan({ failurePolicy: undefined, prior, verdict: unhealthy, now: T0 + 2 * D }));
      assert.deepEqual(p, { next: undefined, action: { kind: 'applySource' }, rule: 'noFailurePolicy' });
    }
  });

  test('forcedRetry: forced sync, prior Failed(R) → Progressing(R) with a restarted clock, applySource', () => {
    const prior = { ...rollout('Failed', R2), finishedAt: formatTime(T0 + D) };
    const now = T0 + 3 * D;
    const p = planRollout(plan({ forcedSyncPending: true, prior, now }));
    assert.equal(p.rule, 'forcedRetry');
    assert.deepEqual(p.action, { kind: 'applySource' });
    assert.deepEqual(p.transition, { from: 'Failed', to: 'Progressing', reason: 'ForcedRetry' });
    assert.deepEqual(p.next, {
      state: 'Progressing',
      renderRef: R2,
      revision: 'rev-2',
      startedAt: formatTime(now),
      reason: 'ForcedRetry',
      message: 'forced sync: retrying sha256:222222222222… once after Failed',
    });
  });

  test('forcedRetry before holdRollback: forced sync with prior RolledBack(R) retries R instead of holding', () => {
    const p = planRollout(
      plan({ forcedSyncPending: true, prior: rollout('RolledBack', R2), renderApplied: false }),
    );
    assert.equal(p.rule, 'forcedRetry');
    assert.deepEqual(p.action, { kind: 'applySource' });
    // R is not live (the last healthy render is), so the clock starts only when R is applied again.
    assert.equal(p.next?.startedAt, undefined);
    assert.equal(p.next?.finishedAt, undefined);
  });

  test('a forced sync does not touch a Progressing or Succeeded rollout of R', () => {
    assert.equal(planRollout(plan({ forcedSyncPending: true })).rule, 'wait');
    const succeeded = rollout('Succeeded', R2);
    const p = planRollout(plan({ forcedSyncPending: true, prior: succeeded }));
    assert.equal(p.rule, 'settled');
    assert.equal(p.next, succeeded);
  });

  test('newRender before forcedRetry: a forced sync with a new render opens it as NewRender', () => {
    const p = planRollout(plan({ forcedSyncPending: true, prior: rollout('Failed', R1) }));
    assert.equal(p.rule, 'newRender');
    assert.equal(p.next?.reason, 'NewRender');
  });

  test('newRender: no prior → Progressing(R); the clock waits until R is applied', () => {
    const p = planRollout(plan({ prior: undefined, renderApplied: false }));
    assert.equal(p.rule, 'newRender');
    assert.deepEqual(p.transition, { from: 'None', to: 'Progressing', reason: 'NewRender' });
    assert.deepEqual(p.next, {
      state: 'Progressing',
      renderRef: R2,
      revision: 'rev-2',
      reason: 'NewRender',
      message: 'rolling out sha256:222222222222… (revision rev-2)',
    });
  });

  test('newRender: a render that is already live (e.g. after an unpin) opens with a fresh clock', () => {
    const now = T0 + 5 * D;
    const p = planRollout(plan({ prior: rollout('Succeeded', R1), now, renderApplied: true }));
    assert.equal(p.rule, 'newRender');
    assert.equal(p.next?.startedAt, formatTime(now));
    assert.match(p.next?.message ?? '', /replaces sha256:111111111111… \(Succeeded\)$/);
  });

  test('newRender: after an unpin, the prior rollout of R re-opens with a fresh clock', () => {
    const now = T0 + 5 * D;
    for (const state of ['Succeeded', 'Failed', 'RolledBack', 'Progressing'] as const) {
      // R is not live (the pinned render is): the clock starts when R is applied again.
      const p = planRollout(plan({ prior: rollout(state, R2), now, unpinned: true, renderApplied: false }));
      assert.equal(p.rule, 'newRender', state);
      assert.deepEqual(p.action, { kind: 'applySource' });
      assert.deepEqual(p.transition, { from: state, to: 'Progressing', reason: 'Unpinned' });
      assert.equal(p.next?.startedAt, undefined);
      assert.equal(p.next?.reason, 'Unpinned');
    }
    // pinned to R itself: R is live, so the fresh clock starts now
    const live = planRollout(
      plan({ prior: rollout('Succeeded', R2), now, unpinned: true, renderApplied: true }),
    );
    assert.equal(live.next?.startedAt, formatTime(now));
    // an unpin to a render other than the prior's is an ordinary new render
    assert.equal(
      planRollout(plan({ prior: rollout('Succeeded', R1), unpinned: true })).next?.reason,
      'NewRender',
    );
  });

  test('newRender before holdRollback: a new render replaces a RolledBack rollout and applies the source', () => {
    const p = planRollout(plan({ prior: rollout('RolledBack', R1) }));
    assert.equal(p.rule, 'newRender');
    assert.deepEqual(p.action, { kind: 'applySource' });
    assert.deepEqual(p.transition, { from: 'RolledBack', to: 'Progressing', reason: 'NewRender' });
  });

  test('no early verdict: a Healthy verdict never makes a new render Succeeded', () => {
    // Prior Progressing(R1) with a Healthy verdict of R1 in hand, and the source moved on to R2.
    const p = planRollout(plan({ prior: rollout('Progressing', R1), verdict: healthy, now: T0 + 2 * D }));
    assert.equal(p.rule, 'newRender');
    assert.equal(p.next?.state, 'Progressing');
    assert.equal(p.next?.renderRef, R2);
  });

  test('holdRollback: prior RolledBack(R) holds: unchanged, applyLastHealthy', () => {
    const prior = rollout('RolledBack', R2);
    for (const verdict of [healthy, unhealthy, pending]) {
      const p = planRollout(plan({ prior, verdict }));
      assert.equal(p.rule, 'holdRollback');
      assert.equal(p.next, prior);
      assert.deepEqual(p.action, { kind: 'applyLastHealthy' });
      assert.equal(p.transition, undefined);
    }
  });

  test('settled: prior Succeeded(R) or Failed(R) stays, applySource, even unhealthy past the deadline', () => {
    for (const state of ['Succeeded', 'Failed'] as const) {
      const prior = rollout(state, R2);
      const p = planRollout(plan({ prior, verdict: unhealthy, now: T0 + 2 * D }));
      assert.equal(p.rule, 'settled');
      assert.equal(p.next, prior);
      assert.deepEqual(p.action, { kind: 'applySource' });
    }
  });

  test('healthy: Progressing and Healthy → Succeeded, finishedAt now', () => {
    const now = T0 + 150_000;
    const p = planRollout(plan({ verdict: healthy, now }));
    assert.equal(p.rule, 'healthy');
    assert.deepEqual(p.transition, { from: 'Progressing', to: 'Succeeded', reason: 'Healthy' });
    assert.deepEqual(p.next, {
      ...rollout('Progressing', R2),
      state: 'Succeeded',
      reason: 'Healthy',
      message: 'sha256:222222222222… healthy after 2m30s',
      finishedAt: formatTime(now),
    });
  });

  test('healthy before rollBack: Healthy past the deadline still succeeds', () => {
    const p = planRollout(plan({ verdict: healthy, now: T0 + 2 * D }));
    assert.equal(p.rule, 'healthy');
    assert.equal(p.next?.state, 'Succeeded');
  });

  test('rollBack: Unhealthy at elapsed = D with a last healthy render → RolledBack, applyLastHealthy', () => {
    const now = T0 + D;
    const p = planRollout(plan({ verdict: unhealthy, now }));
    assert.equal(p.rule, 'rollBack');
    assert.deepEqual(p.action, { kind: 'applyLastHealthy' });
    assert.deepEqual(p.transition, { from: 'Progressing', to: 'RolledBack', reason: 'DeadlineExceeded' });
    assert.equal(p.next?.state, 'RolledBack');
    assert.equal(p.next?.startedAt, formatTime(T0));
    assert.equal(p.next?.finishedAt, formatTime(now));
    assert.equal(
      p.next?.message,
      'sha256:222222222222… unhealthy 10m0s after start (deadline 10m): 1 of 1 objects not healthy; ' +
        'rolled back to sha256:111111111111… (revision rev-1)',
    );
  });

  test('rollBack: rollback unset is the API default OnFailure', () => {
    const p = planRollout(plan({ verdict: unhealthy, now: T0 + D, failurePolicy: { deadline: '10m' } }));
    assert.equal(p.rule, 'rollBack');
  });

  test('rollBack/fail need elapsed ≥ D: one second short is wait', () => {
    const p = planRollout(plan({ verdict: unhealthy, now: T0 + D - 1000 }));
    assert.equal(p.rule, 'wait');
  });

  test('fail: not eligible for rollback → Failed, applySource', () => {
    const rows: [string, Partial<PlanInput>, RegExp][] = [
      ['rollback Never', { failurePolicy: { deadline: '10m', rollback: 'Never' } }, /no rollback: .*Never$/],
      ['no last healthy render', { lastHealthy: undefined }, /no rollback: no render has been healthy yet$/],
    ];
    for (const [name, over, message] of rows) {
      const p = planRollout(plan({ verdict: unhealthy, now: T0 + D, ...over }));
      assert.equal(p.rule, 'fail', name);
      assert.deepEqual(p.action, { kind: 'applySource' }, name);
      assert.equal(p.next?.state, 'Failed', name);
      assert.equal(p.next?.reason, 'DeadlineExceeded', name);
      assert.match(p.next?.message ?? '', message, name);
    }
  });

  test('a revert to the last healthy render that turns unhealthy → Failed, not RolledBack to itself', () => {
    // R1 was healthy; R2 rolled back; the user reverts the source to R1, which now fails on its own.
    const lastHealthy = { renderRef: R1, revision: 'rev-1', time: formatTime(T0 - 60 * MIN) };
    const opened = planRollout(
      plan({
        render: { renderRef: R1, revision: 'rev-1b' },
        prior: rollout('RolledBack', R2),
        lastHealthy,
        now: T0,
      }),
    );
    assert.equal(opened.rule, 'newRender');
    assert.ok(opened.next);
    const p = planRollout(
      plan({
        render: { renderRef: R1, revision: 'rev-1b' },
        prior: opened.next,
        lastHealthy,
        verdict: unhealthy,
        now: T0 + D,
      }),
    );
    assert.equal(p.rule, 'fail');
    assert.equal(p.next?.state, 'Failed');
    assert.deepEqual(p.action, { kind: 'applySource' });
    assert.match(p.next?.message ?? '', /the last healthy render is this render$/);
  });

  test('wait: Pending past the deadline (observer down) stays Progressing: no rollback', () => {
    const prior = rollout('Progressing', R2);
    const observerDown: Verdict = {
      kind: 'Pending',
      reason: 'ObserverNotLive',
      message: 'observer not live',
    };
    const p = planRollout(plan({ prior, verdict: observerDown, now: T0 + 10 * D }));
    assert.equal(p.rule, 'wait');
    assert.equal(p.next, prior);
    assert.deepEqual(p.action, { kind: 'applySource' });
  });

  test('wait: an applied render with no clock on record starts it now', () => {
    const now = T0 + 3 * D;
    const p = planRollout(plan({ prior: rollout('Progressing', R2, null), verdict: unhealthy, now }));
    assert.equal(p.rule, 'wait');
    assert.equal(p.next?.startedAt, formatTime(now));
  });

  test('a render approved late still gets its full deadline', () => {
    // Manual mode: R2 is planned at T0 and held by the gate for two hours (not applied, no clock).
    const held = planRollout(plan({ prior: rollout('Succeeded', R1), renderApplied: false, now: T0 }));
    assert.ok(held.next);
    assert.equal(held.next.startedAt, undefined);
    const waiting = planRollout(
      plan({ prior: held.next, verdict: unhealthy, renderApplied: false, now: T0 + 12 * D }),
    );
    assert.equal(waiting.rule, 'wait');
    assert.equal(waiting.next?.startedAt, undefined);
    assert.ok(waiting.next);
    // Approved and applied at T0 + 12D: the clock starts there.
    const approvedAt = T0 + 12 * D;
    const applied = startRolloutClock(waiting.next, approvedAt);
    assert.equal(applied.startedAt, formatTime(approvedAt));
    const early = planRollout(plan({ prior: applied, verdict: unhealthy, now: approvedAt + D - 1000 }));
    assert.equal(early.rule, 'wait');
    const due = planRollout(plan({ prior: applied, verdict: unhealthy, now: approvedAt + D }));
    assert.equal(due.rule, 'rollBack');
  });
});

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

  test('the next rollout is always of R; a new render always starts Progressing; rollback never targets R', () => {
    fc.assert(
      fc.property(inputArb, (x) => {
        const prior =
          x.prior &&
          rollout(
            x.prior.state,
            x.prior.renderRef,
            x.prior.startedAt === null ? null : T0 + x.prior.startedAt,
          );
        const p = planRollout({
          render: { renderRef: x.renderRef, revision: 'rev' },
          prior,
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
});

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
