import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type DerivedState, type DeriveInput, deriveState, type Observation } from './state.ts';

const now = new Date('2025-03-01T12:00:10.750Z');
const nowS = '2025-03-01T12:00:10Z';
const fail: Observation = {
  kind: 'found',
  result: { kind: 'fail', rule: 'default/deployment', message: '1/3 available' },
};
const error: Observation = { kind: 'found', result: { kind: 'error', rule: 'default/x', message: 'boom' } };
const pass: Observation = { kind: 'found', result: { kind: 'pass', rules: ['default/deployment'] } };
const noRule: Observation = { kind: 'found', result: { kind: 'noRule' } };
const notFound: Observation = { kind: 'notFound' };
const minute = 60_000;

test('deriveState', () => {
  const cases: [string, Omit<DeriveInput, 'now'>, DerivedState][] = [
    [
      'pass: Healthy, anchor cleared',
      { observation: pass, firstUnhealthy: '2025-03-01T11:00:00Z', deadlineMs: minute },
      {
        state: 'Healthy',
        firstUnhealthy: undefined,
        message: 'healthy (rule default/deployment)',
        rule: 'default/deployment',
      },
    ],
    [
      'no rule: Healthy once it exists',
      { observation: noRule, firstUnhealthy: '2025-03-01T11:00:00Z', deadlineMs: minute },
      {
        state: 'Healthy',
        firstUnhealthy: undefined,
        message: 'no health rule matches: healthy once it exists',
      },
    ],
    [
      'error: Unknown, anchor kept',
      { observation: error, firstUnhealthy: '2025-03-01T11:00:00Z', deadlineMs: minute },
      { state: 'Unknown', firstUnhealthy: '2025-03-01T11:00:00Z', message: 'boom', rule: 'default/x' },
    ],
    [
      'error without anchor: none set',
      { observation: error, firstUnhealthy: undefined, deadlineMs: minute },
      { state: 'Unknown', firstUnhealthy: undefined, message: 'boom', rule: 'default/x' },
    ],
    [
      'first failure: anchor = now, Progressing',
      { observation: fail, firstUnhealthy: undefined, deadlineMs: minute },
      {
        state: 'Progressing',
        firstUnhealthy: nowS,
        message: '1/3 available (rule default/deployment)',
        rule: 'default/deployment',
      },
    ],
    [
      'failure without deadline: Progressing forever',
      { observation: fail, firstUnhealthy: '2020-01-01T00:00:00Z', deadlineMs: undefined },
      {
        state: 'Progressing',
        firstUnhealthy: '2020-01-01T00:00:00Z',
        message: '1/3 available (rule default/deployment)',
        rule: 'default/deployment',
      },
    ],
    [
      'failure before the deadline',
      { observation: fail, firstUnhealthy: '2025-03-01T11:59:11Z', deadlineMs: minute },
      {
        state: 'Progressing',
        firstUnhealthy: '2025-03-01T11:59:11Z',
        message: '1/3 available (rule default/deployment)',
        rule: 'default/deployment',
      },
    ],
    [
      'failure exactly at the deadline: Degraded',
      { observation: fail, firstUnhealthy: '2025-03-01T11:59:10.750Z', deadlineMs: minute },
      {
        state: 'Degraded',
        firstUnhealthy: '2025-03-01T11:59:10.750Z',
        message: '1/3 available (rule default/deployment)',
        rule: 'default/deployment',
      },
    ],
    [
      'failure past the deadline: Degraded',
      { observation: fail, firstUnhealthy: '2025-03-01T11:00:00Z', deadlineMs: minute },
      {
        state: 'Degraded',
        firstUnhealthy: '2025-03-01T11:00:00Z',
        message: '1/3 available (rule default/deployment)',
        rule: 'default/deployment',
      },
    ],
    [
      'zero deadline: Degraded at once',
      { observation: fail, firstUnhealthy: undefined, deadlineMs: 0 },
      {
        state: 'Degraded',
        firstUnhealthy: nowS,
        message: '1/3 available (rule default/deployment)',
        rule: 'default/deployment',
      },
    ],
    [
      'not found is a failure',
      { observation: notFound, firstUnhealthy: undefined, deadlineMs: minute },
      { state: 'Progressing', firstUnhealthy: nowS, message: 'not found' },
    ],
    [
      'not found past the deadline',
      { observation: notFound, firstUnhealthy: '2025-03-01T11:00:00Z', deadlineMs: minute },
      { state: 'Degraded', firstUnhealthy: '2025-03-01T11:00:00Z', message: 'not found' },
    ],
    [
      'unreadable anchor restarts the clock',
      { observation: fail, firstUnhealthy: 'yesterday', deadlineMs: 0 },
      {
        state: 'Degraded',
        firstUnhealthy: nowS,
        message: '1/3 available (rule default/deployment)',
        rule: 'default/deployment',
      },
    ],
    [
      'unreadable anchor, positive deadline',
      { observation: fail, firstUnhealthy: 'yesterday', deadlineMs: minute },
      {
        state: 'Progressing',
        firstUnhealthy: nowS,
        message: '1/3 available (rule default/deployment)',
        rule: 'default/deployment',
      },
    ],
  ];
  for (const [what, input, want] of cases) assert.deepEqual(deriveState({ ...input, now }), want, what);
});
