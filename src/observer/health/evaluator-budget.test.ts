// The health evaluator under the CEL budget of src/cel/budget.ts: hostile rules, cool-down, shared object budget.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostileRules } from '../../../test/support/hostile-rules.ts';
import { budgetCooldownMs, newEvaluator } from './evaluator.ts';
import type { HealthRule, HealthRuleSetLike, KubeObject } from './types.ts';

const tenant = (rules: HealthRule[]): HealthRuleSetLike => ({
  metadata: { name: 'mine', namespace: 'tenant' },
  spec: { rules },
});
const rule = (name: string, healthy: string, message?: string): HealthRule => ({
  name,
  match: { group: '', kinds: ['ConfigMap'] },
  healthy,
  ...(message !== undefined ? { message } : {}),
});
const cm = (name = 'c', data: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'tenant' },
  data,
});

const ints = `[${Array.from({ length: 100 }, (_, i) => i).join(',')}]`;

test('hostile rules end as an error "rule … exceeded its budget", other rules of the object still judged', () => {
  for (const [what, healthy] of hostileRules) {
    const ev = newEvaluator([tenant([rule('ok', 'true'), rule('hostile', healthy)])]);
    const r = ev.evaluate(cm());
    assert.equal(r.kind, 'error', what);
    assert.equal(r.kind === 'error' ? r.rule : '', 'tenant/mine/hostile', what);
    assert.match(
      r.kind === 'error' ? r.message : '',
      /^rule tenant\/mine\/hostile exceeded its budget \(healthy: more than (1,000,000 cost units|250 ms) per evaluation\)$/,
      what,
    );
    // A certain failure elsewhere still decides (budget errors are errors, not passes).
    const withFail = newEvaluator([tenant([rule('hostile', healthy), rule('no', 'false')])]);
    assert.deepEqual(withFail.evaluate(cm()), {
      kind: 'fail',
      rule: 'tenant/mine/no',
      message: 'rule tenant/mine/no returned false',
    });
  }
});

test('a message expression is under the same budget', () => {
  const ev = newEvaluator([tenant([rule('r', 'false', `${ints}.map(a, ${ints}.map(b, 'ab')).join('')`)])]);
  const r = ev.evaluate(cm());
  assert.equal(r.kind, 'error');
  assert.match(r.kind === 'error' ? r.message : '', /^rule tenant\/mine\/r exceeded its budget \(message: /);
});

test('a rule that exceeded its budget is skipped for the cool-down, then evaluated again', () => {
  let now = 1000;
  const ev = newEvaluator([tenant([rule('big', 'object.data.all(k, object.data[k].size() < 10)')])], {
    now: () => now,
    budget: { expression: { cost: 100, ms: 10_000 }, object: { cost: 100, ms: 10_000 } },
  });
  const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, 'v']));
  const first = ev.evaluate(cm('big', many));
  assert.equal(
    first.kind === 'error' ? first.message : first.kind,
    'rule tenant/mine/big exceeded its budget (healthy: more than 100 cost units per evaluation)',
  );
  const skipped = ev.evaluate(cm('small', { a: 'v' }));
  assert.equal(
    skipped.kind === 'error' ? skipped.message : skipped.kind,
    'rule tenant/mine/big exceeded its budget (healthy: more than 100 cost units per evaluation); not evaluated again for 60 s',
  );
  now += budgetCooldownMs;
  assert.equal(ev.evaluate(cm('small', { a: 'v' })).kind, 'pass');
});

test("one object's rules share the object budget; a rule with nothing left is not tripped", () => {
  const spend = `${ints}.all(a, ${ints}.all(b, true))`; // ~61,000 units: 10,000 iterations and 100 lists
  const ev = newEvaluator([tenant([rule('a', spend), rule('b', spend), rule('c', 'false')])], {
    budget: { expression: { cost: 100_000, ms: 10_000 }, object: { cost: 100_000, ms: 10_000 } },
  });
  const first = ev.evaluate(cm());
  assert.deepEqual(first, {
    kind: 'error',
    rule: 'tenant/mine/b',
    message:
      "rule tenant/mine/b exceeded its budget (healthy: more than 100,000 cost units for all of the object's rules)",
  });
  // b is now skipped; c had nothing left last time but was not put on cool-down: now it runs (and fails).
  assert.deepEqual(ev.evaluate(cm()), {
    kind: 'fail',
    rule: 'tenant/mine/c',
    message: 'rule tenant/mine/c returned false',
  });
});

test('ordinary rules cost little: the default limits leave room for large objects', () => {
  const data = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, 'v'.repeat(400)]));
  const ev = newEvaluator([
    tenant([rule('sizes', "object.data.all(k, object.data[k].size() < 1000 && !k.startsWith('x'))")]),
  ]);
  assert.equal(ev.evaluate(cm('big', data)).kind, 'pass', '1,000 keys of 400 characters');
});
