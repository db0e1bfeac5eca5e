// Table tests of planRollout, rule by rule of docs/design.md#rollout-rules with first-match cases: a
// rollout held, settled, judged healthy, rolled back, failed or waiting, and a render approved late.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MIN, R1, R2, T0 } from './fixtures.ts';
import { type PlanInput, planRollout, startRolloutClock } from './plan-rollout.ts';
import { D, healthy, pending, plan, rollout, unhealthy } from './plan-rollout-fixtures.ts';
import { formatTime } from './time.ts';
import type { Verdict } from './verdict.ts';

describe('planRollout (docs/design.md#rollout-rules, first matching rule)', () => {
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
