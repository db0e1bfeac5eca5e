// Table tests of planRollout, rule by rule of docs/design.md#rollout-rules with first-match cases: a
// render without failurePolicy, forced syncs and new renders (the clock of a held render included).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { R1, R2, T0 } from './fixtures.ts';
import { planRollout } from './plan-rollout.ts';
import { D, healthy, plan, rollout, unhealthy } from './plan-rollout-fixtures.ts';
import { formatTime } from './time.ts';

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
});
