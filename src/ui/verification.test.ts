// The verification a Release page shows: only the rollout's render's, thresholds read from plain
// comparisons of result[0] only, values read as numbers, and a failure named by its check and value.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CheckStatus } from '../api/schema/verification.ts';
import { inventoryOf, R1, R2 } from '../api/testsupport.ts';
import type { Release } from '../api/types.ts';
import { numberOf, parseThreshold, verificationView } from './verification.ts';

const T0 = '2030-01-01T12:00:00.000Z';
const at = (s: number) => new Date(Date.parse(T0) + s * 1000).toISOString();

const release = (renderRef: string | undefined, successCondition?: string): Release => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Release',
  metadata: { name: 'web', namespace: 'ns' },
  spec: {
    source: { inline: { manifests: 'x' } },
    failurePolicy: { deadline: '10m' },
    verification: {
      soak: '5m',
      checks: [
        {
          name: 'error-rate',
          prometheus: { address: 'http://prom:9090', query: 'rate(errors[1m])' },
          ...(successCondition === undefined
            ? { failureCondition: 'result[0] > 0.01' }
            : { successCondition }),
        },
      ],
    },
  },
  status:
    renderRef === undefined
      ? {}
      : { rollout: { renderRef, revision: 'abc', state: 'Progressing', startedAt: T0 } },
});

const check = (over: Partial<CheckStatus> = {}): CheckStatus => ({
  name: 'error-rate',
  phase: 'Failed',
  provider: 'prometheus',
  query: 'rate(errors[1m])',
  condition: 'result[0] > 0.01',
  successful: 1,
  failed: 1,
  inconclusive: 0,
  measurements: [
    { at: at(60), phase: 'Failed', value: '[0.072]' },
    { at: at(30), phase: 'Successful', value: '[0.004]' },
  ],
  ...over,
});

const inventory = (renderRef: string, checks: CheckStatus[], phase: 'Running' | 'Failed' = 'Failed') => ({
  ...inventoryOf('ns', 'web', []),
  verification: { renderRef, startedAt: T0, phase, checks },
});

test('thresholds: a comparison of result[0] with a number, either way round; nothing else', () => {
  const table: [string, ReturnType<typeof parseThreshold>][] = [
    ['result[0] > 0.01', { op: '>', value: 0.01 }],
    ['result[0]<=5', { op: '<=', value: 5 }],
    ['0.5 < result[0]', { op: '>', value: 0.5 }],
    ['1e3 >= result[0]', { op: '<=', value: 1000 }],
    ['result[0] == -2', { op: '==', value: -2 }],
    ['result[1] > 0.01', undefined],
    ['result[0] > 0.01 && result[1] < 2', undefined],
    ['len(result) > 0', undefined],
    ['result[0] > args.limit', undefined],
    [`result[0] > ${'1'.repeat(300)}`, undefined],
  ];
  for (const [condition, want] of table) assert.deepEqual(parseThreshold(condition), want, condition);
});

test('values: the first number of a scalar or a vector; none for NaN, text or nothing', () => {
  const table: [string | undefined, number | undefined][] = [
    ['0.072', 0.072],
    ['[0.072]', 0.072],
    ['[0.072, 0.5]', 0.072],
    ['[1.5e-3]', 0.0015],
    ['-4', -4],
    ['[NaN]', undefined],
    ['no data', undefined],
    [undefined, undefined],
  ];
  for (const [value, want] of table) assert.equal(numberOf(value), want, String(value));
});

test("only the verification of the rollout's render counts", () => {
  assert.equal(verificationView(release(R2), inventory(R1, [check()])), undefined);
  assert.equal(verificationView(release(undefined), inventory(R1, [check()])), undefined);
  assert.equal(verificationView(release(R2), inventoryOf('ns', 'web', [])), undefined);
  assert.equal(verificationView(release(R2), undefined), undefined);
  assert.equal(verificationView(release(R1), inventory(R1, [check()]))?.renderRef, R1);
});

test('a failed check: measurements oldest first, the soak end, the threshold and the sentence', () => {
  const v = verificationView(release(R1), inventory(R1, [check()]));
  assert.equal(v?.soakEndsAt, at(300));
  assert.equal(v?.soakMs, 300_000);
  const c = v?.checks[0];
  assert.deepEqual(
    c?.measurements.map((m) => [m.at, m.number]),
    [
      [at(30), 0.004],
      [at(60), 0.072],
    ],
  );
  assert.deepEqual(c?.threshold, { op: '>', value: 0.01, meaning: 'failure' });
  assert.deepEqual(v?.failure, { check: 'error-rate', text: 'error-rate 0.072 > 0.01', at: at(60) });
});

test('a failed success condition is said as the comparison that did not hold', () => {
  const v = verificationView(
    release(R1, 'result[0] < 0.01'),
    inventory(R1, [check({ condition: 'result[0] < 0.01' })]),
  );
  assert.equal(v?.checks[0]?.threshold?.meaning, 'success');
  assert.equal(v?.failure?.text, 'error-rate 0.072 >= 0.01');
});

test('a condition that is no plain comparison: no line, the sentence quotes it', () => {
  const v = verificationView(
    release(R1),
    inventory(R1, [
      check({
        condition: 'len(result) > 0 && result[0] > 0.01',
        measurements: [{ at: at(60), phase: 'Failed', value: '[0.2]', message: 'above the limit' }],
      }),
    ]),
  );
  assert.equal(v?.checks[0]?.threshold, undefined);
  assert.equal(v?.failure?.text, 'error-rate [0.2] (len(result) > 0 && result[0] > 0.01): above the limit');
});

test('a running verification names no failure', () => {
  const v = verificationView(release(R1), inventory(R1, [check({ phase: 'Running' })], 'Running'));
  assert.equal(v?.phase, 'Running');
  assert.equal(v?.failure, undefined);
});
