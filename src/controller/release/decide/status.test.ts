// Table tests of the controller's status assembly: steady reconciles change nothing, history grows only
// with newly applied renders, the rollback's and renders that failed before applying, each with its
// trigger recorded once; failures set Ready/Stalled, observer-owned conditions are never sent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { R1, R2, R3 } from '../../../api/testsupport.ts';
import type { Release } from '../../../api/types.ts';
import { DryRunFailedError, SourceFailedError } from '../errors.ts';
import { noAttempt, noRollout, type Outcome } from '../outcome.ts';
import { releaseStatus } from './status.ts';

const T0 = Date.parse('2025-01-01T00:00:00Z');
const T1 = T0 + 60_000;

function release(
  status: Release['status'] = {},
  extra: Partial<Release['spec']> = {},
  annotations = {},
): Release {
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { name: 'web', namespace: 'ns', generation: 3, annotations },
    spec: { source: { inline: { manifests: 'x' } }, ...extra },
    status,
  };
}

const synced = (ref: string, rev: string, applied: boolean): Outcome => ({
  result: { kind: 'synced', renderRef: ref, revision: rev },
  attempt: applied
    ? { kind: 'attempt', renderRef: ref, revision: rev, time: '2025-01-01T00:00:00Z', applied: true }
    : noAttempt,
  rollout: noRollout,
  render: { renderRef: ref, revision: rev },
  ...(applied ? { applied: { renderRef: ref, revision: rev } } : {}),
  notes: [],
});

test('a first sync sets lastAttempted, lastSuccessful, one history entry, Ready=True and Stalled=False', () => {
  const s = releaseStatus(release(), synced(R1, 'a', true), T0);
  assert.equal(s.lastAttempted?.renderRef, R1);
  assert.equal(s.lastSuccessful?.renderRef, R1);
  assert.deepEqual(s.history, [
    { renderRef: R1, revision: 'a', appliedAt: '2025-01-01T00:00:00Z', trigger: { kind: 'Created' } },
  ]);
  assert.equal(s.observedGeneration, 3);
  const ready = s.conditions?.find((c) => c.type === 'Ready');
  assert.equal(ready?.status, 'True');
  assert.equal(ready?.reason, 'Synced');
  assert.equal(s.conditions?.find((c) => c.type === 'Stalled')?.status, 'False');
});

test('a steady reconcile (nothing new) yields exactly the prior status', () => {
  const first = releaseStatus(release(), synced(R1, 'a', true), T0);
  const again = releaseStatus(release(first), synced(R1, 'a', false), T1);
  assert.deepEqual(again, first);
  // a forced re-apply of the same render moves neither history nor times
  const forced = releaseStatus(
    release(first),
    {
      ...synced(R1, 'a', true),
      attempt: { kind: 'attempt', renderRef: R1, revision: 'a', time: '2025-01-01T00:01:00Z', applied: true },
    },
    T1,
  );
  assert.deepEqual(forced.history, first.history);
  assert.deepEqual(forced.lastAttempted, first.lastAttempted);
});

test('a new render appends history; a return to the first render appends it again; historyLimit trims', () => {
  let s = releaseStatus(release(undefined, { historyLimit: 2 }), synced(R1, 'a', true), T0);
  s = releaseStatus(release(s, { historyLimit: 2 }), synced(R2, 'b', true), T1);
  s = releaseStatus(release(s, { historyLimit: 2 }), synced(R1, 'c', true), T1 + 1000);
  assert.deepEqual(
    s.history?.map((h) => [h.renderRef, h.revision]),
    [
      [R2, 'b'],
      [R1, 'c'],
    ],
  );
});

test('failures: Ready=False with the step reason; Stalled only for errors a retry cannot fix; lastSuccessful kept', () => {
  const ok = releaseStatus(release(), synced(R1, 'a', true), T0);
  const rows: ReadonlyArray<[Error & { reason: string }, string]> = [
    [new SourceFailedError('git fetch failed'), 'False'],
    [DryRunFailedError.fromStatus('dry run failed: ConfigMap ns/x: bad', 422), 'True'],
  ];
  for (const [error, stalled] of rows) {
    const out: Outcome = {
      result: { kind: 'failed', error: error as never },
      attempt: noAttempt,
      rollout: noRollout,
      notes: [],
    };
    const s = releaseStatus(release(ok), out, T1);
    const ready = s.conditions?.find((c) => c.type === 'Ready');
    assert.equal(ready?.status, 'False');
    assert.equal(ready?.reason, error.reason);
    assert.equal(ready?.message, error.message);
    assert.equal(s.conditions?.find((c) => c.type === 'Stalled')?.status, stalled, error.reason);
    assert.equal(s.lastSuccessful?.renderRef, R1);
    assert.deepEqual(s.lastAttempted, ok.lastAttempted);
  }
});

test('a render that failed before it applied gets one history entry of its own; applying it later appends one', () => {
  const ok = releaseStatus(release(), synced(R1, 'a', true), T0);
  const dryRunFailed: Outcome = {
    result: {
      kind: 'failed',
      error: DryRunFailedError.fromStatus('dry run failed: ConfigMap ns/x: bad', 422),
    },
    attempt: noAttempt,
    rollout: noRollout,
    render: { renderRef: R2, revision: 'b' },
    notes: [],
  };
  const failed = releaseStatus(release(ok), dryRunFailed, T1);
  assert.deepEqual(failed.history?.at(-1), {
    renderRef: R2,
    revision: 'b',
    attemptedAt: '2025-01-01T00:01:00Z',
    result: 'Failed',
    reason: 'DryRunFailed',
    trigger: { kind: 'Source' },
  });
  assert.deepEqual(failed.lastAttempted, ok.lastAttempted, 'nothing was stored: lastAttempted stays');
  // A retry that fails again records nothing new, a minute later or with another request pending.
  const retried = releaseStatus(release(failed), dryRunFailed, T1 + 60_000);
  assert.deepEqual(retried.history, failed.history);
  // A failed re-sync of the render running (the newest entry) is no new entry either.
  const resync = releaseStatus(
    release(ok),
    { ...dryRunFailed, render: { renderRef: R1, revision: 'a' } },
    T1,
  );
  assert.deepEqual(resync.history, ok.history);
  // The source fixed upstream and R2 applies: its applied entry follows the failed one, which stays.
  const applied = releaseStatus(release(retried), synced(R2, 'b', true), T1 + 120_000);
  assert.deepEqual(
    applied.history?.map((h) => [h.renderRef, h.appliedAt ?? `attempted ${h.attemptedAt}`, h.result ?? '-']),
    [
      [R1, '2025-01-01T00:00:00Z', '-'],
      [R2, 'attempted 2025-01-01T00:01:00Z', 'Failed'],
      [R2, '2025-01-01T00:03:00Z', '-'],
    ],
  );
  // No render (the source failed): nothing to record.
  const noRender = releaseStatus(
    release(ok),
    {
      ...dryRunFailed,
      result: { kind: 'failed', error: new SourceFailedError('git fetch failed') },
      render: undefined,
    },
    T1,
  );
  assert.deepEqual(noRender.history, ok.history);
});

test("the observer's conditions are not part of what the controller sends", () => {
  const prior = {
    conditions: [
      {
        type: 'Healthy',
        status: 'True' as const,
        reason: 'Healthy',
        message: '',
        lastTransitionTime: '2025-01-01T00:00:00Z',
      },
    ],
  };
  const s = releaseStatus(release(prior), synced(R1, 'a', true), T0);
  assert.deepEqual(s.conditions?.map((c) => c.type).sort(), ['Ready', 'Stalled']);
});

test('a pending forced sync is recorded as handled, also when the reconcile fails', () => {
  const out: Outcome = {
    result: { kind: 'failed', error: new SourceFailedError('down') },
    attempt: noAttempt,
    rollout: noRollout,
    notes: [],
  };
  const s = releaseStatus(
    release({}, {}, { 'convoy.kumodo.io/force-sync-at': '2025-01-01T00:00:30Z' }),
    out,
    T1,
  );
  assert.equal(s.lastHandledForceSyncAt, '2025-01-01T00:00:30Z');
});

test('status.revision is the short revision of currentRender; status.message says what failed', () => {
  const sha = 'ce61177f6ea0d6b1a1b3c8e8a0f2f7c0a9b8c7d6';
  const ok = releaseStatus(release(), synced(R1, sha, true), T0);
  assert.equal(ok.revision, 'ce61177f6ea0');
  assert.match(ok.message ?? '', /^applied revision ce61177f6ea0/);
  const failed = releaseStatus(
    release(ok),
    {
      result: { kind: 'failed', error: new DryRunFailedError('ConfigMap x: Invalid value', true) },
      attempt: noAttempt,
      rollout: noRollout,
      notes: [],
      warnings: [{ reason: 'ZeroDeadline', message: 'failurePolicy.deadline is 0' }],
    },
    T1,
  );
  assert.equal(failed.revision, 'ce61177f6ea0', 'kept from the prior currentRender');
  assert.equal(
    failed.message,
    'Warning: failurePolicy.deadline is 0; DryRunFailed (stalled: a retry cannot fix this; change the Release or its source): ConfigMap x: Invalid value',
  );
});

test("an ended rollout's state is kept on its history entry; a later reconcile keeps it unchanged", () => {
  const policy = { healthAssessment: {}, failurePolicy: { deadline: '5m' } };
  const prior: Release['status'] = {
    history: [
      { renderRef: R1, revision: 'a', appliedAt: '2025-01-01T00:00:00Z' },
      { renderRef: R2, revision: 'b', appliedAt: '2025-01-01T00:01:00Z' },
    ],
    rollout: { state: 'RolledBack', renderRef: R2, revision: 'b', reason: 'DeadlineExceeded' },
  };
  // the rollback re-applies R1: a new entry, and R2's entry says how its rollout ended
  const s = releaseStatus(release(prior, policy), synced(R1, 'a', true), T1);
  assert.deepEqual(
    s.history?.map((h) => [h.renderRef, h.result, h.reason]),
    [
      [R1, undefined, undefined],
      [R2, 'RolledBack', 'DeadlineExceeded'],
      [R1, undefined, undefined],
    ],
  );
  const again = releaseStatus(release(s, policy), synced(R1, 'a', true), T1 + 1000);
  assert.deepEqual(again.history, s.history);
  // a running rollout marks nothing
  const running = releaseStatus(
    release({ ...prior, rollout: { state: 'Progressing', renderRef: R2 } }, policy),
    synced(R2, 'b', true),
    T1,
  );
  assert.equal(
    running.history?.some((h) => h.result !== undefined),
    false,
  );
});

const SYNC_AT = 'convoy.kumodo.io/sync-requested-at';
const SYNC_BY = 'convoy.kumodo.io/sync-requested-by';
const OBSERVER = 'user:system:serviceaccount:convoy-system:convoy-observer';

const held = (ref: string, rev: string): Outcome => ({
  result: { kind: 'held', reason: 'WaitingForHook', message: 'PreSync hook migrate running' },
  attempt: { kind: 'attempt', renderRef: ref, revision: rev, time: '2025-01-01T00:00:00Z', applied: false },
  rollout: noRollout,
  render: { renderRef: ref, revision: rev },
  notes: [],
});

test("a render's trigger is decided in the pass that first attempts it and never relabelled", () => {
  const first = releaseStatus(release(), synced(R1, 'a', true), T0);
  // alice asks for a sync: R2 (a new commit) is first attempted in that pass, held by a hook
  const asked = { [SYNC_AT]: '2025-01-01T00:01:00.000Z', [SYNC_BY]: 'user:alice' };
  const pass1 = releaseStatus(release(first, {}, asked), held(R2, 'b'), T1);
  assert.deepEqual(pass1.lastAttempted?.trigger, { kind: 'SyncRequest', by: 'user:alice' });
  assert.equal(pass1.lastHandledSyncRequestAt, '2025-01-01T00:01:00.000Z');
  // the next pass applies R2 after bob's request: the entry keeps alice's, decided in the first pass
  const later = { [SYNC_AT]: '2025-01-01T00:02:00.000Z', [SYNC_BY]: 'user:bob' };
  const pass2 = releaseStatus(release(pass1, {}, later), synced(R2, 'b', true), T1 + 1000);
  assert.deepEqual(pass2.history?.at(-1)?.trigger, { kind: 'SyncRequest', by: 'user:alice' });
  assert.equal(pass2.lastHandledSyncRequestAt, '2025-01-01T00:02:00.000Z');
  // a later request, a pin, the observer's wake-up: the recorded entries stay as they were
  const pinned = releaseStatus(release(pass2, { pin: { renderRef: R1 } }, later), synced(R2, 'b', false), T1);
  assert.deepEqual(pinned.history, pass2.history);
  assert.deepEqual(pass2.history?.[0]?.trigger, { kind: 'Created' });
});

test("a request already seen, or the observer's wake-up, is no trigger; a new revision is the source", () => {
  const first = releaseStatus(release(), synced(R1, 'a', true), T0);
  const asked = { [SYNC_AT]: '2025-01-01T00:01:00.000Z', [SYNC_BY]: 'user:alice' };
  // alice's request finds nothing new: it is seen, nothing recorded but that
  const noop = releaseStatus(release(first, {}, asked), synced(R1, 'a', false), T1);
  assert.equal(noop.lastHandledSyncRequestAt, '2025-01-01T00:01:00.000Z');
  // an hour later the source poll finds a new commit: not alice's doing
  const polled = releaseStatus(release(noop, {}, asked), synced(R2, 'b', true), T1 + 3_600_000);
  assert.deepEqual(polled.history?.at(-1)?.trigger, { kind: 'Source' });
  // the observer's wake-up is neither a trigger nor remembered as a request seen
  const woke = { [SYNC_AT]: '2025-01-01T02:00:00.000Z', [SYNC_BY]: OBSERVER };
  const after = releaseStatus(release(polled, {}, woke), synced(R3, 'c', true), T1 + 7_200_000);
  assert.deepEqual(after.history?.at(-1)?.trigger, { kind: 'Source' });
  assert.equal(after.lastHandledSyncRequestAt, '2025-01-01T00:01:00.000Z');
});

test("the automatic rollback's re-apply is a history entry of its own, triggered by the rollback", () => {
  const policy = { healthAssessment: {}, failurePolicy: { deadline: '5m' } };
  const prior: Release['status'] = {
    lastAttempted: { renderRef: R2, revision: 'b', time: '2025-01-01T00:01:00Z', applied: true },
    history: [
      { renderRef: R1, revision: 'a', appliedAt: '2025-01-01T00:00:00Z', trigger: { kind: 'Created' } },
      { renderRef: R2, revision: 'b', appliedAt: '2025-01-01T00:01:00Z', trigger: { kind: 'Source' } },
    ],
  };
  const attempt = { renderRef: R1, revision: 'a', time: '2025-01-01T00:06:00Z', applied: true };
  const rolledBack: Outcome = {
    result: { kind: 'rolledBack', renderRef: R1, revision: 'a', message: 'rolled back to a' },
    attempt: { kind: 'attempt', ...attempt },
    rollout: {
      kind: 'rollout',
      rollout: { state: 'RolledBack', renderRef: R2, revision: 'b', reason: 'DeadlineExceeded' },
    },
    render: { renderRef: R2, revision: 'b' },
    notes: [],
  };
  const s = releaseStatus(release(prior, policy), rolledBack, T1);
  assert.deepEqual(
    s.history?.map((h) => [h.renderRef, h.result, h.trigger]),
    [
      [R1, undefined, { kind: 'Created' }],
      [R2, 'RolledBack', { kind: 'Source' }],
      [R1, undefined, { kind: 'Rollback', reason: 'DeadlineExceeded' }],
    ],
  );
  assert.deepEqual(s.lastAttempted?.trigger, { kind: 'Rollback', reason: 'DeadlineExceeded' });
});

test('a render rolled back before its sync completed gets its entry, then the rollback its own', () => {
  const policy = { healthAssessment: {}, failurePolicy: { deadline: '5m' } };
  const prior: Release['status'] = {
    // R2's wave 0 is applied, wave 1 waits: an attempt, no entry yet
    lastAttempted: {
      renderRef: R2,
      revision: 'b',
      time: '2025-01-01T00:01:00Z',
      applied: false,
      trigger: { kind: 'Source' },
    },
    history: [
      { renderRef: R1, revision: 'a', appliedAt: '2025-01-01T00:00:00Z', trigger: { kind: 'Created' } },
    ],
  };
  const rolledBack: Outcome = {
    result: { kind: 'rolledBack', renderRef: R1, revision: 'a', message: 'rolled back to a' },
    attempt: { kind: 'attempt', renderRef: R1, revision: 'a', time: '2025-01-01T00:06:00Z', applied: true },
    rollout: {
      kind: 'rollout',
      rollout: {
        state: 'RolledBack',
        renderRef: R2,
        revision: 'b',
        startedAt: '2025-01-01T00:01:00Z',
        reason: 'WaveTimeout',
      },
    },
    render: { renderRef: R2, revision: 'b' },
    notes: [],
  };
  const s = releaseStatus(release(prior, policy), rolledBack, T1);
  assert.deepEqual(s.history, [
    { renderRef: R1, revision: 'a', appliedAt: '2025-01-01T00:00:00Z', trigger: { kind: 'Created' } },
    {
      renderRef: R2,
      revision: 'b',
      appliedAt: '2025-01-01T00:01:00Z',
      trigger: { kind: 'Source' },
      result: 'RolledBack',
      reason: 'WaveTimeout',
    },
    {
      renderRef: R1,
      revision: 'a',
      appliedAt: '2025-01-01T00:01:00Z',
      trigger: { kind: 'Rollback', reason: 'WaveTimeout' },
    },
  ]);
  // the next pass, holding the rollback, adds nothing
  const again = releaseStatus(release(s, policy), rolledBack, T1 + 1000);
  assert.deepEqual(again.history, s.history);
});
