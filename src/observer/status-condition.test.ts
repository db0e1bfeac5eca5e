// Table tests of the condition semantics the health and drift loops share.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Condition, ReleaseStatus } from '../api/types.ts';
import { type ConditionValue, conditionStored, nextCondition, recordInFlight } from './status-condition.ts';

const stored: Condition = {
  type: 'Drifted',
  status: 'False',
  reason: 'InSync',
  message: '2 of 2 objects in sync',
  lastTransitionTime: 'T1',
  observedGeneration: 3,
};
const prior: ReleaseStatus = {
  conditions: [
    { ...stored, type: 'Healthy', status: 'True', reason: 'Healthy', lastTransitionTime: 'H' },
    stored,
  ],
};

describe('nextCondition', () => {
  const rows: [string, ConditionValue, ReleaseStatus | undefined, number | undefined, Condition][] = [
    [
      'first write: stamped now',
      { status: 'False', reason: 'InSync', message: 'm' },
      undefined,
      3,
      {
        type: 'Drifted',
        status: 'False',
        reason: 'InSync',
        message: 'm',
        lastTransitionTime: 'T2',
        observedGeneration: 3,
      },
    ],
    [
      'same status, other reason and message: the transition time stays',
      { status: 'False', reason: 'InSync', message: 'other' },
      prior,
      4,
      {
        type: 'Drifted',
        status: 'False',
        reason: 'InSync',
        message: 'other',
        lastTransitionTime: 'T1',
        observedGeneration: 4,
      },
    ],
    [
      'status flips: stamped now',
      { status: 'True', reason: 'Drifted', message: 'm' },
      prior,
      3,
      {
        type: 'Drifted',
        status: 'True',
        reason: 'Drifted',
        message: 'm',
        lastTransitionTime: 'T2',
        observedGeneration: 3,
      },
    ],
    [
      'no generation: no observedGeneration; another type with the same status does not count',
      { status: 'True', reason: 'Drifted', message: 'm' },
      { conditions: [{ ...stored, type: 'Healthy', status: 'True' }] },
      undefined,
      { type: 'Drifted', status: 'True', reason: 'Drifted', message: 'm', lastTransitionTime: 'T2' },
    ],
  ];
  for (const [name, value, p, generation, want] of rows)
    it(name, () => assert.deepEqual(nextCondition('Drifted', value, p, generation, 'T2'), want));
});

describe('conditionStored', () => {
  const rows: [string, ReleaseStatus | undefined, Condition | undefined, boolean][] = [
    ['the same condition is stored', prior, { ...stored }, true],
    ['no status', undefined, stored, false],
    ['nothing to compare', prior, undefined, false],
    ['only another type is stored', { conditions: [{ ...stored, type: 'Healthy' }] }, stored, false],
    ['status differs', prior, { ...stored, status: 'True' }, false],
    ['reason differs', prior, { ...stored, reason: 'Other' }, false],
    ['message differs', prior, { ...stored, message: 'x' }, false],
    ['transition time differs', prior, { ...stored, lastTransitionTime: 'T9' }, false],
    ['generation differs', prior, { ...stored, observedGeneration: 4 }, false],
  ];
  for (const [name, p, want, stored] of rows) it(name, () => assert.equal(conditionStored(p, want), stored));
});

describe('recordInFlight', () => {
  const key = { group: '', version: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'a', wave: 0 };
  const rows: [string, Parameters<typeof recordInFlight>[0], boolean][] = [
    ['no inventory', undefined, false],
    ['an empty inventory', {}, false],
    ['keys pending, no entry recorded', { pending: [key] }, true],
    ['keys pending beside recorded entries (a later wave)', { pending: [key], entries: [key] }, false],
    ['entries recorded, nothing pending', { entries: [key] }, false],
  ];
  for (const [name, inventory, want] of rows) it(name, () => assert.equal(recordInFlight(inventory), want));
});
