import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostileRules } from '../../../test/support/hostile-rules.ts';
import { compileExpr } from './cel.ts';
import { charge, defaultBudget, ObjectBudget } from './cel-budget.ts';
import { replaceStrings } from './cel-metering.ts';
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

test('ObjectBudget: cost and time, expression and object', () => {
  const e = compileExpr(`${ints}.all(a, ${ints}.all(b, true))`, 'bool');
  assert.ok(e.ok);
  const run = (budget: ObjectBudget) => e.expr.run(new Map(), budget);
  const exhausted = (budget: ObjectBudget) => {
    const r = run(budget);
    return r.ok ? undefined : r.exhausted;
  };
  /** A budget of `expression` and `object` cost, each with `ms` of time unless given. */
  const limits = (expression: number, object: number, ms = { expression: 1000, object: 1000 }) =>
    new ObjectBudget({
      expression: { cost: expression, ms: ms.expression },
      object: { cost: object, ms: ms.object },
    });
  assert.deepEqual(run(new ObjectBudget(defaultBudget)), { ok: true, value: true });
  assert.deepEqual(exhausted(limits(1000, 5000)), {
    how: { kind: 'cost', limit: 1000, of: 'expression' },
    ran: true,
  });
  assert.deepEqual(exhausted(limits(1e12, 1e12, { expression: 0, object: 1000 })), {
    how: { kind: 'time', ms: 0, of: 'expression' },
    ran: true,
  });
  const spent = limits(1000, 1000);
  run(spent);
  assert.deepEqual(exhausted(spent), { how: { kind: 'cost', limit: 1000, of: 'object' }, ran: false });
});

test('metering keeps the meaning of macros and errors', () => {
  const cases: [string, unknown][] = [
    ['[1, 2, 3].all(x, x > 0)', true],
    ['[1, 2, 3].exists(x, x > 2)', true],
    ['[1, 2, 3].exists_one(x, x > 1)', false],
    ['[1, 2, 3].map(x, x * 2) == [2, 4, 6]', true],
    ['[1, 2, 3].filter(x, x % 2 == 1) == [1, 3]', true],
    ["{'a': 1, 'b': 2}.all(k, k.size() == 1)", true],
    ['[1, 0].all(x, 1 / x > 0)', 'error'],
    ['[1, 0].exists(x, 1 / x > 0)', true],
    ["[0, 1].exists(x, 1 / x > 0) && 'ab'.replace('b', 'c') == 'ac'", true],
  ];
  for (const [src, want] of cases) {
    const c = compileExpr(src, 'bool');
    assert.ok(c.ok, src);
    const r = c.expr.run(new Map());
    assert.deepEqual(r.ok ? r.value : 'error', want, src);
  }
});

test('replaceStrings: linear, with the strings extension semantics', () => {
  const cases: [string, string, string, bigint | undefined, string][] = [
    ['banana', 'a', 'o', undefined, 'bonono'],
    ['banana', 'a', 'o', 2n, 'bonona'],
    ['banana', 'a', 'o', 0n, 'banana'],
    ['banana', 'a', 'o', -1n, 'bonono'],
    ['banana', 'ana', 'x', undefined, 'bxna'],
    ['abc', '', '-', undefined, '-a-b-c-'],
    ['abc', '', '-', 2n, '-a-bc'],
    ['', '', '-', undefined, '-'],
    ['héllo', 'é', 'e', undefined, 'hello'],
    ['x', 'x', 'xxxxxxxxxx', undefined, 'xxxxxxxxxx'],
    ['aaa', 'a', 'aa', undefined, 'aaaaaa'],
  ];
  for (const [s, f, t, n, want] of cases)
    assert.equal(replaceStrings(s, f, t, n), want, `${s}.replace(${f}, ${t}, ${n})`);
  const long = 'a'.repeat(200_000);
  assert.equal(
    replaceStrings(long, 'a', 'b'),
    'b'.repeat(200_000),
    '200,000 matches (the library took minutes)',
  );
});

test('ObjectBudget: the time budget is CPU time, so waiting for a core does not spend it', () => {
  const budget = { expression: { cost: 1e12, ms: 30 }, object: { cost: 1e12, ms: 1000 } };
  // The thread blocked for 100 ms of wall time (as when the node is busy) uses no CPU meanwhile.
  const blocked = new ObjectBudget(budget).run(() => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    for (let i = 0; i < 200; i++) charge(1);
    return true;
  });
  assert.deepEqual(blocked, { value: true, exhausted: undefined, ran: true });
  // The same wall time spent computing is stopped at 30 ms of CPU.
  const busy = new ObjectBudget(budget).run(() => {
    const end = performance.now() + 2000;
    while (performance.now() < end) charge(1);
    return true;
  });
  assert.deepEqual(busy.exhausted, { kind: 'time', ms: 30, of: 'expression' });
});
