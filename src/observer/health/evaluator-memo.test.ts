// EvaluatorMemo: one compilation per distinct rule-set content, errors kept, least recently used evicted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RuleCompileError } from './evaluator.ts';
import { EvaluatorMemo } from './evaluator-memo.ts';
import type { HealthRuleSetLike } from './types.ts';

const set = (name: string, healthy: string): HealthRuleSetLike => ({
  kind: 'GlobalHealthRuleSet',
  metadata: { name },
  spec: { rules: [{ name: 'r', match: { group: '', kinds: ['ConfigMap'] }, healthy }] },
});
const cm = (v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { v } });

test('EvaluatorMemo: equal content compiles once and judges as a fresh evaluator would', () => {
  const memo = new EvaluatorMemo();
  const a = memo.get([set('s', "object.data.v == 'ok'")]);
  const b = memo.get([set('s', "object.data.v == 'ok'")]);
  assert.equal(a, b);
  assert.equal(memo.size, 1);
  assert.equal(a.evaluate(cm('ok')).kind, 'pass');
  assert.equal(a.evaluate(cm('no')).kind, 'fail');
});

test('EvaluatorMemo: changed content (an edited rule, another set) is a new evaluator', () => {
  const memo = new EvaluatorMemo();
  const a = memo.get([set('s', "object.data.v == 'ok'")]);
  const edited = memo.get([set('s', "object.data.v == 'no'")]);
  const other = memo.get([set('t', "object.data.v == 'ok'")]);
  assert.notEqual(a, edited);
  assert.notEqual(a, other);
  assert.equal(edited.evaluate(cm('no')).kind, 'pass');
  assert.equal(memo.size, 3);
});

test('EvaluatorMemo: a selection that does not compile throws its RuleCompileError every time', () => {
  const memo = new EvaluatorMemo();
  for (let i = 0; i < 2; i++)
    assert.throws(() => memo.get([set('bad', 'object.data.v ==')]), RuleCompileError);
  assert.equal(memo.size, 1);
});

test('EvaluatorMemo: bounded, the least recently used selection is compiled again', () => {
  let compiles = 0;
  const memo = new EvaluatorMemo(2, (sets) => {
    compiles++;
    return new EvaluatorMemo(1).get(sets);
  });
  const x = [set('x', 'true')];
  const y = [set('y', 'true')];
  const z = [set('z', 'true')];
  memo.get(x);
  memo.get(y);
  memo.get(x); // x is now the most recently used
  memo.get(z); // evicts y
  assert.equal(compiles, 3);
  memo.get(x);
  assert.equal(compiles, 3);
  memo.get(y);
  assert.equal(compiles, 4);
  assert.equal(memo.size, 2);
});
