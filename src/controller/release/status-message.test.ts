// Table test of statusMessage: what the MESSAGE column says for each kind of Release.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Condition, RolloutStatus } from '../../api/types.ts';
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

test('statusMessage', () => {
  const cases: readonly (readonly [string, Parameters<typeof statusMessage>[0], string])[] = [
    [
      'stalled failure says a retry will not help',
      {
        conditions: [
          cond('Ready', 'False', 'DryRunFailed', 'ConfigMap x: invalid'),
          cond('Stalled', 'True', 'InvalidSpec', 'ConfigMap x: invalid'),
        ],
        rollout: undefined,
        warnings: [],
      },
      'DryRunFailed (stalled: a retry cannot fix this; change the Release or its source): ConfigMap x: invalid',
    ],
    [
      'transient failure',
      {
        conditions: [
          cond('Ready', 'False', 'SourceFailed', 'timeout'),
          cond('Stalled', 'False', 'NotStalled', ''),
        ],
        rollout: undefined,
        warnings: [],
      },
      'SourceFailed: timeout',
    ],
    [
      'waiting',
      {
        conditions: [cond('Ready', 'Unknown', 'WaitingForHook', 'PostSync hook smoke')],
        rollout: undefined,
        warnings: [],
      },
      'WaitingForHook: PostSync hook smoke',
    ],
    [
      'synced, rollout progressing',
      {
        conditions: [cond('Ready', 'True', 'Synced', 'applied revision abc')],
        rollout: rollout('Progressing', 'NewRender'),
        warnings: [],
      },
      'rollout Progressing: NewRender',
    ],
    [
      'synced, rollout succeeded',
      {
        conditions: [cond('Ready', 'True', 'Synced', 'applied revision abc')],
        rollout: rollout('Succeeded'),
        warnings: [],
      },
      'applied revision abc',
    ],
    [
      'warnings first',
      {
        conditions: [cond('Ready', 'True', 'Synced', 'applied revision abc')],
        rollout: undefined,
        warnings: ['failurePolicy.deadline is 0'],
      },
      'Warning: failurePolicy.deadline is 0; applied revision abc',
    ],
    ['nothing yet', { conditions: [], rollout: undefined, warnings: [] }, ''],
  ];
  for (const [name, input, want] of cases) assert.equal(statusMessage(input), want, name);
});

test('oneLine folds lines and bounds the length', () => {
  assert.equal(oneLine('a\n\n  b  c\n'), 'a; b c');
  const long = oneLine('x'.repeat(1000));
  assert.equal(long.length, MESSAGE_MAX);
  assert.ok(long.endsWith('…'));
});
