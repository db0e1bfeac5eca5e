// Table test of deadlineVerdict and syncFailureOf (docs/design.md#rollout-rules): what the rollout
// deadline reads of verdict(R).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deadlineVerdict, syncFailureOf } from './deadline-verdict.ts';
import type { Verdict } from './verdict.ts';

const R = `sha256:${'f'.repeat(64)}`;
const pending = (reason: Verdict['reason']): Verdict => ({ kind: 'Pending', reason, message: 'm' });

test('deadlineVerdict: a running hook and a failing sync count past the deadline; what the observer cannot tell does not', () => {
  const failing = 'DryRunFailed: dry run failed: Gadget app/g: spec.size';
  const rows: [string, Verdict, string | undefined, string, string][] = [
    [
      'a PreSync or PostSync hook still running',
      pending('HookRunning'),
      undefined,
      'Unhealthy',
      'HookRunning',
    ],
    ['R not applied because its sync fails', pending('NotYetRecorded'), failing, 'Unhealthy', 'SyncFailing'],
    [
      'R not applied yet, no failure (waves to go)',
      pending('NotYetRecorded'),
      undefined,
      'Pending',
      'NotYetRecorded',
    ],
    ['the observer not live', pending('ObserverNotLive'), failing, 'Pending', 'ObserverNotLive'],
    ['not yet assessed', pending('NotYetAssessed'), failing, 'Pending', 'NotYetAssessed'],
    ['health unknown', pending('HealthUnknown'), undefined, 'Pending', 'HealthUnknown'],
    ['a PostSync hook not started yet', pending('HookNotStarted'), undefined, 'Pending', 'HookNotStarted'],
    ['Healthy as it is', { kind: 'Healthy', reason: 'Healthy', message: 'm' }, failing, 'Healthy', 'Healthy'],
  ];
  for (const [name, v, failure, kind, reason] of rows) {
    const got = deadlineVerdict(v, failure);
    assert.deepEqual([got.kind, got.reason], [kind, reason], name);
  }
  assert.match(deadlineVerdict(pending('NotYetRecorded'), failing).message, /its sync fails: DryRunFailed/);
});

test('syncFailureOf: Ready False with a sync failure, for the rollout of R only', () => {
  const ready = (status: 'True' | 'False', reason: string) => [
    { type: 'Ready', status, reason, message: 'why', lastTransitionTime: '2026-01-01T00:00:00Z' },
  ];
  const rows: [string, Parameters<typeof syncFailureOf>[0], string | undefined][] = [
    [
      'dry run refused',
      { rollout: { renderRef: R }, conditions: ready('False', 'DryRunFailed') },
      'DryRunFailed: why',
    ],
    [
      'apply failed',
      { rollout: { renderRef: R }, conditions: ready('False', 'ApplyFailed') },
      'ApplyFailed: why',
    ],
    [
      'another render',
      { rollout: { renderRef: 'sha256:0' }, conditions: ready('False', 'DryRunFailed') },
      undefined,
    ],
    [
      'awaiting approval',
      { rollout: { renderRef: R }, conditions: ready('False', 'WaitingForApproval') },
      undefined,
    ],
    [
      'the source failed (no sync began)',
      { rollout: { renderRef: R }, conditions: ready('False', 'SourceFailed') },
      undefined,
    ],
    ['no status', undefined, undefined],
  ];
  for (const [name, status, want] of rows) assert.equal(syncFailureOf(status, R), want, name);
});
