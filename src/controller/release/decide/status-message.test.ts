// Table test of statusMessage: what the MESSAGE column says for each kind of Release.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Condition, RolloutStatus } from '../../../api/types.ts';
import { MESSAGE_MAX, oneLine, statusMessage } from './status-message.ts';

const T = '2026-01-01T00:00:00Z';
const cond = (type: string, status: Condition['status'], reason: string, message: string): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: T,
});
const rollout = (state: RolloutStatus['state'], message?: string): RolloutStatus => ({
  state,
  renderRef: `sha256:${'a'.repeat(64)}`,
  ...(message === undefined ? {} : { message }),
});

type Input = Parameters<typeof statusMessage>[0];
const input = (conditions: Condition[], rollout?: RolloutStatus, warnings: string[] = []): Input => ({
  conditions,
  rollout,
  warnings,
});
const invalid = 'ConfigMap x: invalid';
const synced = cond('Ready', 'True', 'Synced', 'applied revision abc');

test('statusMessage', () => {
  const stalled = [
    cond('Ready', 'False', 'DryRunFailed', invalid),
    cond('Stalled', 'True', 'InvalidSpec', invalid),
  ];
  const transient = [
    cond('Ready', 'False', 'SourceFailed', 'timeout'),
    cond('Stalled', 'False', 'NotStalled', ''),
  ];
  const cases: readonly (readonly [string, Input, string])[] = [
    [
      'stalled failure says a retry will not help',
      input(stalled),
      `DryRunFailed (stalled: a retry cannot fix this; change the Release or its source): ${invalid}`,
    ],
    ['transient failure', input(transient), 'SourceFailed: timeout'],
    [
      'waiting',
      input([cond('Ready', 'Unknown', 'WaitingForHook', 'PostSync hook smoke')]),
      'WaitingForHook: PostSync hook smoke',
    ],
    [
      'synced, rollout progressing',
      input([synced], rollout('Progressing', 'NewRender')),
      'rollout Progressing: NewRender',
    ],
    ['synced, rollout succeeded', input([synced], rollout('Succeeded')), 'applied revision abc'],
    [
      'warnings first',
      input([synced], undefined, ['failurePolicy.deadline is 0']),
      'Warning: failurePolicy.deadline is 0; applied revision abc',
    ],
    ['nothing yet', input([]), ''],
  ];
  for (const [name, given, want] of cases) assert.equal(statusMessage(given), want, name);
});

test('oneLine folds lines and bounds the length', () => {
  assert.equal(oneLine('a\n\n  b  c\n'), 'a; b c');
  const long = oneLine('x'.repeat(1000));
  assert.equal(long.length, MESSAGE_MAX);
  assert.ok(long.endsWith('…'));
});
