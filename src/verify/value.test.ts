import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatValue } from './value.ts';

test('formatValue: Prometheus spellings, lists, JSON, at most 256 characters', () => {
  const cases: [unknown, string][] = [
    [0.072, '0.072'],
    [[0.072, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY], '[0.072, NaN, +Inf, -Inf]'],
    [[], '[]'],
    [{ ok: true, n: 1 }, '{"ok":true,"n":1}'],
    ['I am OK', '"I am OK"'],
    [null, 'null'],
  ];
  for (const [v, want] of cases) assert.equal(formatValue(v), want);
  const long = formatValue(Array.from({ length: 200 }, () => 0.5));
  assert.equal(long.length, 256);
  assert.ok(long.endsWith('…'));
});
