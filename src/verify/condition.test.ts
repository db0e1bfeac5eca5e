import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toCelValue } from '../cel/value.ts';
import { compileConditions, describeDecisive, judge } from './condition.ts';

const conditions = (successCondition?: string, failureCondition?: string) => {
  const c = compileConditions('error-rate', {
    ...(successCondition !== undefined ? { successCondition } : {}),
    ...(failureCondition !== undefined ? { failureCondition } : {}),
  });
  assert.ok(c.ok, c.ok ? '' : c.message);
  return c.conditions;
};

test('judge: Argo Rollouts semantics of success and failure conditions', () => {
  const cases: [string, string | undefined, string | undefined, unknown, string][] = [
    ['only success, true', 'result[0] >= 0.95', undefined, [0.99], 'Successful'],
    ['only success, false', 'result[0] >= 0.95', undefined, [0.5], 'Failed'],
    ['only failure, true', undefined, 'result[0] > 0.01', [0.072], 'Failed'],
    ['only failure, false', undefined, 'result[0] > 0.01', [0.001], 'Successful'],
    ['both, success', 'result[0] < 0.01', 'result[0] > 0.05', [0.001], 'Successful'],
    ['both, failure', 'result[0] < 0.01', 'result[0] > 0.05', [0.1], 'Failed'],
    ['both, neither', 'result[0] < 0.01', 'result[0] > 0.05', [0.03], 'Inconclusive'],
    ['both true: failure wins', 'result[0] > 0.0', 'result[0] > 0.05', [0.1], 'Failed'],
    ['none (a Job check)', undefined, undefined, true, 'Successful'],
    ['NaN, only success: Failed (as in the Argo docs)', 'result >= 0.95', undefined, Number.NaN, 'Failed'],
    ['NaN, both: Inconclusive', 'result >= 0.95', 'result < 0.95', Number.NaN, 'Inconclusive'],
    ['NaN accepted with isNaN', 'isNaN(result) || result >= 0.95', undefined, Number.NaN, 'Successful'],
    ['+Inf, success', 'result >= 0.95', undefined, Number.POSITIVE_INFINITY, 'Successful'],
    ['+Inf, isInf failure', undefined, 'isInf(result)', Number.POSITIVE_INFINITY, 'Failed'],
    ['empty vector guarded', 'size(result) == 0 || result[0] >= 0.95', undefined, [], 'Successful'],
    ['empty vector unguarded: Inconclusive, not Failed', 'result[0] >= 0.95', undefined, [], 'Inconclusive'],
    ['int literal against a double', 'result[0] > 1', undefined, [1.5], 'Successful'],
    ['int literal in arithmetic', 'result[0] * 100 > 1', undefined, [0.5], 'Successful'],
    ['int literal first', '100 * result[0] < 1', undefined, [0.5], 'Failed'],
    ['double divided by int', 'result[0] / 2 == 0.25', undefined, [0.5], 'Successful'],
    ['int minus double', '1 - result[0] > 0.9', undefined, [0.05], 'Successful'],
    [
      'web JSON int field times a double',
      'result.count * 1.5 > 10.0',
      undefined,
      toCelValue({ count: 7 }),
      'Successful',
    ],
    [
      'web JSON fields',
      'result.ok && result.successPercent >= 0.90',
      undefined,
      toCelValue({ ok: true, successPercent: 0.95 }),
      'Successful',
    ],
    ['all over a vector', 'result.all(x, x < 1000)', undefined, [10, 999], 'Successful'],
    ['not a bool at run time', 'result', undefined, 3, 'Inconclusive'],
  ];
  for (const [what, s, f, result, want] of cases) {
    assert.equal(judge(conditions(s, f), result).phase, want, what);
  }
});

test('judge: the decisive condition and the message of an Inconclusive', () => {
  const failed = judge(conditions(undefined, 'result[0] > 0.01'), [0.072]);
  assert.deepEqual(failed, {
    phase: 'Failed',
    decisive: { field: 'failureCondition', source: 'result[0] > 0.01', held: true },
  });
  assert.equal(describeDecisive(failed.decisive ?? assert.fail()), 'met failureCondition `result[0] > 0.01`');
  const notMet = judge(conditions('result[0] <= 0.01'), [0.072]);
  assert.equal(
    describeDecisive(notMet.decisive ?? assert.fail()),
    'did not meet successCondition `result[0] <= 0.01`',
  );
  assert.deepEqual(judge(conditions('result[0] >= 0.95'), []), {
    phase: 'Inconclusive',
    message: 'successCondition: index 0 out of bounds [0, -1) (the query returned no data)',
  });
  assert.deepEqual(judge(conditions('result[0] < 0.01', 'result[0] > 0.05'), [0.03]), {
    phase: 'Inconclusive',
    message: 'neither condition held',
  });
  const spend = `[${Array.from({ length: 100 }, (_, i) => i).join(',')}]`;
  const hostile = judge(conditions(`${spend}.all(a, ${spend}.all(b, ${spend}.all(c, true)))`), []);
  assert.equal(hostile.phase, 'Inconclusive');
  assert.match(hostile.message ?? '', /^successCondition exceeded its budget \(more than /);
});

test('compileConditions: errors name the check and the field, at spec time', () => {
  const cases: [Record<string, string>, string][] = [
    [
      { successCondition: "'a' * 1" },
      "check error-rate, successCondition, line 1, column 4: found no matching overload for '_*_' applied to '(string, int)'",
    ],
    [
      { failureCondition: 'object.x > 1' },
      "check error-rate, failureCondition, line 1, column 1: undeclared reference to 'object' (the measured value is bound to 'result')",
    ],
    [
      { successCondition: 'result >' },
      'check error-rate, successCondition, line 1, column 8: found > but expecting end of input',
    ],
    [
      { successCondition: 'size(result)' },
      'check error-rate, successCondition, line 1, column 1: expression has type int, want bool',
    ],
    [
      { successCondition: 'nosuch(result)' },
      "check error-rate, successCondition, line 1, column 1: unknown function 'nosuch'",
    ],
  ];
  for (const [spec, want] of cases) {
    const c = compileConditions('error-rate', spec);
    assert.equal(c.ok, false, JSON.stringify(spec));
    if (!c.ok && want !== '') assert.ok(c.message.startsWith(want), `${c.message}\nwant ${want}`);
  }
  assert.ok(
    compileConditions('x', { successCondition: 'result[0] > 1', failureCondition: 'isNaN(result[0])' }).ok,
  );
});
