import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CheckStatus, MEASUREMENTS_KEPT, type MeasurementPhase } from '../api/schema/verification.ts';
import {
  advanceCheck,
  type CheckPlan,
  checkPhase,
  type Measured,
  measurementDue,
  newCheckStatus,
  nextMeasurementAt,
  verificationPhase,
} from './decide.ts';

const T0 = Date.parse('2026-12-06T12:00:00Z');
const plan: CheckPlan = {
  name: 'error-rate',
  provider: 'prometheus',
  shown: 'sum(rate(http_errors[1m])) / sum(rate(http_requests[1m]))',
  intervalMs: 30_000,
  failureLimit: 1,
  inconclusiveLimit: 1,
};
const soak = { startedAtMs: T0, soakMs: 120_000 };
const counts = (
  successful: number,
  failed: number,
  inconclusive: number,
  phase: CheckStatus['phase'] = 'Running',
) => ({
  ...newCheckStatus(plan),
  phase,
  successful,
  failed,
  inconclusive,
});

/** `status` with measurements of these phases, the last one newest. */
const tail = (status: CheckStatus, ...phases: MeasurementPhase[]): CheckStatus => ({
  ...status,
  measurements: phases.map((phase, i) => ({
    at: new Date(T0 + i * 1000).toISOString(),
    phase,
  })),
});

test('checkPhase: failures first, then inconclusive, then soak and count', () => {
  const cases: [string, CheckPlan, CheckStatus, number, string][] = [
    ['nothing yet', plan, counts(0, 0, 0), T0, 'Running'],
    ['failures at the limit', plan, counts(0, 1, 0), T0, 'Running'],
    ['failures past the limit', plan, counts(3, 2, 0), T0, 'Failed'],
    ['failure limit 0: one failure fails', { ...plan, failureLimit: 0 }, counts(0, 1, 0), T0, 'Failed'],
    [
      'inconclusive in a row past the limit',
      plan,
      tail(counts(0, 0, 2), 'Error', 'Inconclusive'),
      T0,
      'Inconclusive',
    ],
    [
      'inconclusive past the limit but not in a row: a conclusive one resumed it',
      plan,
      tail(counts(1, 0, 2), 'Error', 'Inconclusive', 'Successful'),
      T0,
      'Running',
    ],
    ['inconclusive at the limit', plan, tail(counts(0, 0, 1), 'Error'), T0, 'Running'],
    ['failed beats inconclusive', plan, tail(counts(0, 2, 2), 'Error', 'Error'), T0, 'Failed'],
    ['soak not over', plan, counts(5, 0, 0), T0 + 119_999, 'Running'],
    ['soak over, measured', plan, counts(5, 1, 1), T0 + 120_000, 'Passed'],
    ['soak over, nothing measured', plan, counts(0, 0, 0), T0 + 120_000, 'Running'],
    ['soak over, count not reached', { ...plan, count: 10 }, counts(9, 0, 0), T0 + 600_000, 'Running'],
    ['soak over, count reached', { ...plan, count: 10 }, counts(10, 0, 0), T0 + 600_000, 'Passed'],
    ['count reached, soak not over', { ...plan, count: 1 }, counts(1, 0, 0), T0 + 1000, 'Running'],
    [
      'soak over, only errors within the limit: nothing was measured',
      { ...plan, inconclusiveLimit: 2 },
      tail(counts(0, 0, 2), 'Error', 'Error'),
      T0 + 120_000,
      'Running',
    ],
    [
      'soak over, the newest an error within the limit: waits for a conclusive one',
      plan,
      tail(counts(3, 0, 1), 'Successful', 'Error'),
      T0 + 120_000,
      'Running',
    ],
    [
      'soak over, a conclusive one after errors',
      { ...plan, inconclusiveLimit: 2 },
      tail(counts(1, 0, 2), 'Error', 'Error', 'Successful'),
      T0 + 120_000,
      'Passed',
    ],
    [
      'count counts conclusive measurements only',
      { ...plan, count: 10 },
      counts(9, 0, 1),
      T0 + 600_000,
      'Running',
    ],
  ];
  for (const [what, p, status, now, want] of cases)
    assert.equal(checkPhase(p, status, soak, now), want, what);
});

const measured = (atMs: number, phase: Measured['phase'], value = '[0.001]'): Measured => ({
  atMs,
  phase,
  value,
  ...(phase === 'Error'
    ? { message: 'prometheus:9090 did not answer within 10 s' }
    : {
        decided:
          phase === 'Failed'
            ? 'met failureCondition `result[0] > 0.01`'
            : 'did not meet failureCondition `result[0] > 0.01`',
        condition: 'result[0] > 0.01',
      }),
});

test('nextMeasurementAt and measurementDue: first at the soak start, then one per interval', () => {
  const s0 = newCheckStatus(plan);
  assert.equal(nextMeasurementAt(plan, s0, soak), T0);
  assert.equal(measurementDue(plan, s0, soak, T0 - 1), false);
  assert.equal(measurementDue(plan, s0, soak, T0), true);
  const s1 = advanceCheck(plan, s0, soak, T0 + 2000, measured(T0 + 2000, 'Successful'));
  assert.equal(nextMeasurementAt(plan, s1, soak), T0 + 32_000);
  assert.equal(measurementDue(plan, s1, soak, T0 + 31_999), false);
  assert.equal(measurementDue(plan, s1, soak, T0 + 32_000), true);
  assert.equal(
    nextMeasurementAt(plan, counts(0, 2, 0, 'Failed'), soak),
    undefined,
    'a final check takes no more',
  );
});

test('advanceCheck: counts, keeps the newest measurements, decides and says why in one line', () => {
  let s: CheckStatus | undefined;
  let t = T0;
  for (const phase of ['Successful', 'Error', 'Failed'] as const) {
    s = advanceCheck(plan, s, soak, t, measured(t, phase, phase === 'Failed' ? '[0.072]' : '[0.001]'));
    t += 30_000;
  }
  assert.deepEqual(s, {
    name: 'error-rate',
    phase: 'Running',
    provider: 'prometheus',
    query: plan.shown,
    successful: 1,
    failed: 1,
    inconclusive: 1,
    condition: 'result[0] > 0.01',
    message:
      'error-rate: [0.072] met failureCondition `result[0] > 0.01` at 12:01:00 (query: sum(rate(http_errors[1m])) / sum(rate(http_requests[1m])))',
    measurements: [
      {
        at: '2026-12-06T12:00:00Z',
        phase: 'Successful',
        value: '[0.001]',
        message: 'did not meet failureCondition `result[0] > 0.01`',
      },
      {
        at: '2026-12-06T12:00:30Z',
        phase: 'Error',
        value: '[0.001]',
        message: 'prometheus:9090 did not answer within 10 s',
      },
      {
        at: '2026-12-06T12:01:00Z',
        phase: 'Failed',
        value: '[0.072]',
        message: 'met failureCondition `result[0] > 0.01`',
      },
    ],
  });
  const failed = advanceCheck(plan, s, soak, t, measured(t, 'Failed', '[0.08]'));
  assert.equal(failed.phase, 'Failed');
  assert.equal(
    failed.message,
    'error-rate: [0.08] met failureCondition `result[0] > 0.01` at 12:01:30 (query: sum(rate(http_errors[1m])) / sum(rate(http_requests[1m])))',
  );
  assert.equal(
    advanceCheck(plan, failed, soak, t + 1, measured(t + 1, 'Successful')),
    failed,
    'final stays final',
  );

  const passed = advanceCheck(plan, counts(4, 0, 0), soak, T0 + 120_000);
  assert.equal(passed.phase, 'Passed', 'the soak ending passes a check without a new measurement');

  let many: CheckStatus = newCheckStatus({ ...plan, failureLimit: 1000 });
  for (let i = 0; i < MEASUREMENTS_KEPT + 5; i++)
    many = advanceCheck(plan, many, soak, T0 + i, measured(T0 + i * 1000, 'Successful'));
  assert.equal(many.measurements?.length, MEASUREMENTS_KEPT);
  assert.equal(many.successful, MEASUREMENTS_KEPT + 5);
  assert.equal(many.measurements?.[0]?.at, '2026-12-06T12:00:05Z', 'the oldest dropped');
});

test('verificationPhase: any Failed, else any Inconclusive, else all Passed, else Running', () => {
  const c = (name: string, phase: CheckStatus['phase'], message?: string): CheckStatus => ({
    ...newCheckStatus({ ...plan, name }),
    phase,
    ...(message !== undefined ? { message } : {}),
  });
  const cases: [CheckStatus[], unknown][] = [
    [
      [c('a', 'Passed'), c('b', 'Failed', 'b: [0.072] met failureCondition'), c('c', 'Inconclusive')],
      { phase: 'Failed', reason: 'VerificationFailed', message: 'b: [0.072] met failureCondition' },
    ],
    [
      [c('a', 'Passed'), c('c', 'Inconclusive', 'c: no data'), c('d', 'Running')],
      { phase: 'Inconclusive', reason: 'VerificationInconclusive', message: 'c: no data' },
    ],
    [
      [c('a', 'Passed'), c('b', 'Passed')],
      { phase: 'Passed', reason: 'VerificationPassed', message: '2 of 2 checks passed' },
    ],
    [
      [c('a', 'Passed'), c('b', 'Running'), c('d', 'Running')],
      { phase: 'Running', reason: 'Verifying', message: '1 of 3 checks passed; running: b, d' },
    ],
    [[c('a', 'Failed')], { phase: 'Failed', reason: 'VerificationFailed', message: 'a failed' }],
  ];
  for (const [checks, want] of cases) assert.deepEqual(verificationPhase(checks), want);
});
