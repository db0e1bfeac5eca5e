import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuantity, sameQuantity } from './quantity.ts';

test('quantities the API server canonicalizes compare equal; different ones do not', () => {
  const cases: [unknown, unknown, boolean][] = [
    ['1000m', '1', true],
    ['0.5', '500m', true],
    [0.5, '500m', true],
    [1, '1', true],
    ['1024Mi', '1Gi', true],
    ['1e3', '1k', true],
    ['1E3', '1k', true],
    ['1.5Gi', '1536Mi', true],
    ['100m', '0.1', true],
    ['128974848', '129e6', false],
    ['1G', '1Gi', false],
    ['1', '2', false],
    ['250m', '0.25', true],
    ['-1', '-1000m', true],
    ['.5', '500m', true],
    ['2.', '2', true],
  ];
  for (const [a, b, want] of cases) {
    const qa = parseQuantity(a);
    const qb = parseQuantity(b);
    assert.ok(qa !== undefined && qb !== undefined, `${a} and ${b} parse`);
    assert.equal(sameQuantity(qa, qb), want, `${a} vs ${b}`);
  }
});

test('what is not a quantity is refused', () => {
  for (const v of ['blue', '1 Gi', '', 'Gi', '1.2.3', '1e999', true, null, {}, Number.NaN, '1x']) {
    assert.equal(parseQuantity(v), undefined, JSON.stringify(v));
  }
});
