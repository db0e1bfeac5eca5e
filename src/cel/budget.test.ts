import assert from 'node:assert/strict';
import { test } from 'node:test';
import { charge, defaultBudget, ObjectBudget } from './budget.ts';
import { type CelDeclaration, compileExpr } from './compile.ts';
import { replaceStrings } from './metering.ts';

const ints = `[${Array.from({ length: 100 }, (_, i) => i).join(',')}]`;
const object: CelDeclaration = { variable: 'object', what: 'the object' };

test('ObjectBudget: cost and time, expression and object', () => {
  const e = compileExpr(`${ints}.all(a, ${ints}.all(b, true))`, 'bool', object);
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
    const c = compileExpr(src, 'bool', object);
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
