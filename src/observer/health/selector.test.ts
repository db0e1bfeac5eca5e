import assert from 'node:assert/strict';
import { test } from 'node:test';
import { selectorMatches, selectorProblem } from './selector.ts';
import type { LabelSelector } from './types.ts';

test('selectorMatches', () => {
  const labels = { app: 'web', tier: 'front' };
  const cases: [string, LabelSelector | undefined, Record<string, string> | undefined, boolean][] = [
    ['absent selector', undefined, labels, true],
    ['empty selector', {}, undefined, true],
    ['matchLabels hit', { matchLabels: { app: 'web' } }, labels, true],
    ['matchLabels miss', { matchLabels: { app: 'db' } }, labels, false],
    ['matchLabels on unlabelled object', { matchLabels: { app: 'web' } }, undefined, false],
    [
      'In hit',
      { matchExpressions: [{ key: 'tier', operator: 'In', values: ['back', 'front'] }] },
      labels,
      true,
    ],
    ['In miss', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] }, labels, false],
    ['In without label', { matchExpressions: [{ key: 'x', operator: 'In', values: ['a'] }] }, labels, false],
    [
      'NotIn hit',
      { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] },
      labels,
      false,
    ],
    [
      'NotIn without label',
      { matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['a'] }] },
      labels,
      true,
    ],
    ['Exists', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, labels, true],
    ['Exists miss', { matchExpressions: [{ key: 'x', operator: 'Exists' }] }, labels, false],
    ['DoesNotExist', { matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, labels, true],
    ['DoesNotExist miss', { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, labels, false],
    [
      'labels and expressions are ANDed',
      { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] },
      labels,
      false,
    ],
    [
      'inherited keys are not labels',
      { matchExpressions: [{ key: 'toString', operator: 'Exists' }] },
      {},
      false,
    ],
  ];
  for (const [name, sel, l, want] of cases) assert.equal(selectorMatches(sel, l), want, name);
});

test('selectorProblem', () => {
  assert.equal(selectorProblem(undefined), undefined);
  assert.equal(
    selectorProblem({ matchExpressions: [{ key: 'a', operator: 'In', values: ['x'] }] }),
    undefined,
  );
  assert.match(selectorProblem({ matchExpressions: [{ key: 'a', operator: 'In' }] }) ?? '', /needs values/);
  assert.match(
    selectorProblem({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }) ?? '',
    /takes no values/,
  );
  assert.match(
    selectorProblem({ matchExpressions: [{ key: 'a', operator: 'in', values: ['x'] }] }) ?? '',
    /unknown operator/,
  );
});
