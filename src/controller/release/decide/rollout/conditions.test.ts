// Table tests of setCondition: lastTransitionTime moves only with the status.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ConditionUpdate, setCondition } from './conditions.ts';
import { MIN, T0 } from './fixtures.ts';
import { formatTime } from './time.ts';
import type { Condition } from './types.ts';

const ready: Condition = {
  type: 'Ready',
  status: 'True',
  reason: 'Synced',
  message: 'ok',
  lastTransitionTime: formatTime(T0 - 60 * MIN),
  observedGeneration: 3,
};
const rollout: Condition = {
  type: 'RolloutSucceeded',
  status: 'Unknown',
  reason: 'Progressing',
  message: 'rolling out',
  lastTransitionTime: formatTime(T0 - MIN),
  observedGeneration: 3,
};
const now = T0;

function update(c: Condition): ConditionUpdate {
  return {
    type: c.type,
    status: c.status,
    reason: c.reason,
    message: c.message,
    observedGeneration: c.observedGeneration,
  };
}

test('setCondition', () => {
  const same = update(rollout);
  const rows: [string, readonly Condition[], ConditionUpdate, readonly Condition[]][] = [
    [
      'absent: appended, transition now',
      [ready],
      same,
      [ready, { ...rollout, lastTransitionTime: formatTime(now) }],
    ],
    [
      'status changes: replaced in place, transition now',
      [rollout, ready],
      { ...same, status: 'True', reason: 'Succeeded' },
      [{ ...rollout, status: 'True', reason: 'Succeeded', lastTransitionTime: formatTime(now) }, ready],
    ],
    [
      'same status, new message and generation: transition kept',
      [ready, rollout],
      { ...same, message: 'still rolling', observedGeneration: 4 },
      [ready, { ...rollout, message: 'still rolling', observedGeneration: 4 }],
    ],
  ];
  for (const [name, conditions, update, want] of rows) {
    assert.deepEqual(setCondition(conditions, update, now), want, name);
  }
});

test('setCondition returns the same array when nothing changes', () => {
  const conditions = [ready, rollout];
  assert.equal(setCondition(conditions, update(rollout), now + 10 * MIN), conditions);
});
