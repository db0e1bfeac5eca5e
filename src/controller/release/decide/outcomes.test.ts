// Table tests of the Outcome each way a reconcile ends (decide/outcomes.ts), among them seed sentence R37:
// the wave gate is the only transition at apply time — whatever else stageSync ends in, the rollout of
// the outcome is the plan's (its clock started once R was applied), never one stageSync made up.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DryRunFailedError } from '../errors.ts';
import type { RenderSummary } from '../outcome.ts';
import { rollbackOutcome, syncOutcome } from './outcomes.ts';
import { formatTime, type Plan, type Rollout } from './rollout/index.ts';
import type { SyncResult } from './sync/plan.ts';

const T0 = Date.UTC(2026, 0, 1, 12);
const R: RenderSummary = { renderRef: `sha256:${'c'.repeat(64)}`, revision: 'main@c' };
const attempt = { ...R, time: formatTime(T0), applied: true, reason: 'Synced' };
const opened: Rollout = { state: 'Progressing', renderRef: R.renderRef, revision: R.revision };
const plan: Plan = { next: opened, action: { kind: 'applySource' }, rule: 'newRender' };
const record = { attempt, waves: [], notes: [] };

describe('syncOutcome', () => {
  const started = { ...opened, startedAt: formatTime(T0) };
  const gateRollout: Rollout = {
    ...opened,
    state: 'Failed',
    reason: 'WaveTimeout',
    message: 'wave 1 timed out',
  };
  const rows: [string, Exclude<SyncResult, { kind: 'rollback' }>, Rollout | undefined, string][] = [
    ['up to date: nothing applied, the plan as it is', { kind: 'upToDate' }, opened, 'synced'],
    ['synced: the plan, its clock started', { kind: 'synced', ...record }, started, 'synced'],
    [
      'a hook holds: the plan, its clock started',
      { kind: 'held', reason: 'WaitingForHook', message: 'm', rollout: undefined, ...record },
      started,
      'held',
    ],
    [
      'the wave gate decided: its rollout, the one transition at apply time',
      { kind: 'held', reason: 'WaveTimeout', message: 'm', rollout: gateRollout, ...record },
      gateRollout,
      'held',
    ],
    [
      'the dry run failed: the plan, its clock started (the sync of R began; its deadline must fire)',
      {
        kind: 'failed',
        error: DryRunFailedError.fromStatus('x', 422),
        attempt: undefined,
        waves: undefined,
        notes: [],
      },
      started,
      'failed',
    ],
  ];
  for (const [name, sync, want, kind] of rows)
    test(`R37: ${name}`, () => {
      const out = syncOutcome(sync, plan, R, T0);
      assert.equal(out.result.kind, kind);
      assert.deepEqual(
        out.rollout,
        want === undefined ? { kind: 'none' } : { kind: 'rollout', rollout: want },
      );
    });
});

describe('rollbackOutcome', () => {
  const rolledBack = { kind: 'rollout', rollout: { ...opened, state: 'RolledBack' } } as const;
  test('applied: the last healthy render is the attempt', () => {
    const healthy = { renderRef: `sha256:${'a'.repeat(64)}`, revision: 'main@a', time: formatTime(T0) };
    const out = rollbackOutcome(
      { applied: true, attempt: { ...healthy, applied: true, reason: 'RolledBack' }, message: 'rolled back' },
      R,
      rolledBack,
    );
    assert.equal(out.result.kind, 'rolledBack');
    assert.equal(out.attempt.kind === 'attempt' ? out.attempt.renderRef : undefined, healthy.renderRef);
    assert.deepEqual(out.notes, []);
  });
  test('applied with notes: the deleted stuck Pods are the notes (an Event each)', () => {
    const healthy = { renderRef: `sha256:${'a'.repeat(64)}`, revision: 'main@a', time: formatTime(T0) };
    const notes = [
      'deleted Pod ns/db-1 of StatefulSet ns/db: not Ready on revision db-b, the update revision is db-a',
    ];
    const out = rollbackOutcome(
      {
        applied: true,
        attempt: { ...healthy, applied: true, reason: 'RolledBack' },
        message: 'rolled back',
        notes,
      },
      R,
      rolledBack,
    );
    assert.deepEqual(out.notes, notes);
  });
  test('not applied: the rollback holds, no attempt, no error, the reason as a note', () => {
    const out = rollbackOutcome(
      { applied: false, message: 'no rollback: status.lastHealthy is empty' },
      R,
      rolledBack,
    );
    assert.deepEqual(out.result, {
      kind: 'rollbackHeld',
      renderRef: R.renderRef,
      revision: R.revision,
      message: 'no rollback: status.lastHealthy is empty',
    });
    assert.equal(out.attempt.kind, 'none');
    assert.deepEqual(out.notes, ['no rollback: status.lastHealthy is empty']);
    assert.deepEqual(out.rollout, rolledBack);
  });
});
