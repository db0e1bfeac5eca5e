import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toCelValue } from '../../cel/value.ts';
import { compileConditions, judge } from '../condition.ts';
import { ExprTranslateError, exprToCel } from './expr.ts';

test('exprToCel: the translated subset', () => {
  const cases: [string, string][] = [
    ['result[0] >= 0.95', '(result[0] >= 0.95)'],
    ['isNaN(result) || result >= 0.95', '(isNaN(result) || (result >= 0.95))'],
    ['len(result) == 0 || result[0] >= 0.95', '((size(result) == 0) || (result[0] >= 0.95))'],
    ['all(result, # < 1000)', 'result.all(x0, (x0 < 1000))'],
    ['any(result, {# > 0 and not (# > 5)})', 'result.exists(x0, ((x0 > 0) && !((x0 > 5))))'],
    ['all(result, {all(#, {# > 1})})', 'result.all(x0, x0.all(x1, (x1 > 1)))'],
    ['all(result, .v > 1)', 'result.all(x0, (x0.v > 1))'],
    ["result == 'true'", '(result == "true")'],
    ['result.ok && result.successPercent >= 0.90', '(result.ok && (result.successPercent >= 0.9))'],
    ['default(result, 0) < 0.05', '((result == null ? 0 : result) < 0.05)'],
    ['result[0] / 2 > 1', '((double(result[0]) / double(2)) > 1)'],
    ['-result[0] < -1', '(-(result[0]) < -(1))'],
    ['1 + 2 * 3 == 7 % 4', '((1 + (2 * 3)) == (7 % 4))'],
    ['!result.ok or not result.ready', '(!(result.ok) || !(result.ready))'],
    ['result.in > 1', '(result["in"] > 1)'],
    ['result.a.b[1].c != nil', '(result.a.b[1].c != null)'],
    ['asInt(result) > asFloat("1.5")', '(int(result) > double("1.5"))'],
    ['1e3 < 2.5e-1 && 1_000 > 5.0', '((1000.0 < 0.25) && (1000 > 5.0))'],
    ['"a\\"b" == result', '("a\\"b" == result)'],
  ];
  for (const [expr, cel] of cases) assert.equal(exprToCel(expr), cel, expr);
});

test('exprToCel: anything else is refused, saying what', () => {
  const cases: [string, string][] = [
    ['result[0] in [1]', 'operator in is not translated'],
    ["result contains 'x'", 'operator contains is not translated'],
    ['result ?? 1', 'operator ?? is not translated'],
    ['result?.a', 'operator ?. is not translated'],
    ['result[0] ** 2', 'operator ** is not translated'],
    ['result | len()', 'operator | is not translated'],
    ['result[0] > 1 ? true : false', 'operator ? is not translated'],
    ['result[1:2]', 'operator : is not translated'],
    ['filter(result, # > 1)', 'function filter() is not translated'],
    ['constructor(result)', 'function constructor() is not translated'],
    ['threshold > 1', 'unknown name threshold (only result is defined)'],
    ['# > 1', '# outside a predicate'],
    ['all(result, #index > 1)', '#index is not translated'],
    ['result[-1]', 'negative indexes are not translated'],
    ['result.trim()', 'method trim() is not translated'],
    ['[1, 2] == result', 'array literals are not translated'],
    ['len(result, 1)', 'len() takes 1 argument, got 2'],
    ['0x10 == result', 'number 0x10 is not translated'],
    ['(result', 'expected ) at offset 7'],
    ["'open", 'unterminated string'],
    ['result >', 'unexpected end of expression'],
    [`${'('.repeat(100)}1${')'.repeat(100)}`, 'nested more than 64 deep'],
  ];
  for (const [expr, want] of cases) {
    assert.throws(
      () => exprToCel(expr),
      (e: unknown) => e instanceof ExprTranslateError && e.message === want,
      expr,
    );
  }
});

test('translated conditions judge as the Argo Rollouts docs say', () => {
  // docs/features/analysis.md, "Handling Metric Results": the condition, the value, the phase.
  const cases: [string | undefined, string | undefined, unknown, string][] = [
    ['isNaN(result) || result >= 0.95', undefined, Number.NaN, 'Successful'],
    ['result >= 0.95', 'result < 0.95', Number.NaN, 'Inconclusive'],
    ['result >= 0.95', undefined, Number.NaN, 'Failed'],
    ['result >= 0.95', undefined, Number.POSITIVE_INFINITY, 'Successful'],
    [undefined, 'isInf(result)', Number.POSITIVE_INFINITY, 'Failed'],
    ['len(result) == 0 || result[0] >= 0.95', undefined, [], 'Successful'],
    ['len(result) > 0 && result[0] >= 0.95', undefined, [], 'Failed'],
    ['all(result, # < 1000)', undefined, [10, 2000], 'Failed'],
    [
      'result.ok && result.successPercent >= 0.90',
      undefined,
      toCelValue({ ok: true, successPercent: 0.95 }),
      'Successful',
    ],
    [undefined, 'result.errors / result.total > 0.1', toCelValue({ errors: 1, total: 4 }), 'Failed'],
    ["result == 'true'", undefined, 'true', 'Successful'],
  ];
  for (const [s, f, value, want] of cases) {
    const c = compileConditions('m', {
      ...(s !== undefined ? { successCondition: exprToCel(s) } : {}),
      ...(f !== undefined ? { failureCondition: exprToCel(f) } : {}),
    });
    assert.ok(c.ok, c.ok ? '' : c.message);
    assert.equal(judge(c.conditions, value).phase, want, `${s ?? ''} / ${f ?? ''}`);
  }
});
