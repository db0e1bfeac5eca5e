// The health evaluator at evaluation time: numbers, errors as values, messages, precedence, matching,
// the CEL budget, RE2, and Secrets whose values rules never see.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newEvaluator } from './evaluator.ts';
import { deploy, rule, set } from './testsupport.ts';
import type { HealthRule, KubeObject } from './types.ts';

test('JSON integers are CEL int, other numbers stay double', () => {
  const ev = newEvaluator([
    set('s', [
      rule('int-arith', 'object.spec.replicas + 1 == 4 && object.spec.replicas / 2 == 1'),
      rule('double', 'object.spec.ratio * 2.0 == 1.5'),
    ]),
  ]);
  assert.deepEqual(ev.evaluate(deploy({ ratio: 0.75 })), {
    kind: 'pass',
    rules: ['s/int-arith', 's/double'],
  });
});

test('evaluation errors come back as values naming the rule and column', () => {
  const ev = newEvaluator([
    set('s', [rule('avail', 'object.status.availableReplicas == object.spec.replicas')]),
  ]);
  const r = ev.evaluate(deploy());
  assert.equal(r.kind, 'error');
  assert.ok(r.kind === 'error');
  assert.equal(r.rule, 's/avail');
  assert.match(r.message, /^rule s\/avail, healthy, line 1, column 14: .*availableReplicas/);
});

test('a non-bool healthy result is an evaluation error', () => {
  const ev = newEvaluator([set('s', [rule('dyn', 'object.spec.replicas')])]);
  const r = ev.evaluate(deploy());
  assert.equal(r.kind, 'error');
  assert.match(r.kind === 'error' ? r.message : '', /evaluated to int, want bool/);
});

test('failure messages', () => {
  const ev = newEvaluator([
    set('s', [
      rule('with-message', 'object.status.availableReplicas == object.spec.replicas', {
        message:
          "string(object.status.availableReplicas) + '/' + string(object.spec.replicas) + ' available'",
      }),
    ]),
  ]);
  assert.deepEqual(ev.evaluate(deploy({}, { availableReplicas: 2 })), {
    kind: 'fail',
    rule: 's/with-message',
    message: '2/3 available',
  });
  const plain = newEvaluator([set('s', [rule('plain', 'false')])]);
  assert.deepEqual(plain.evaluate(deploy()), {
    kind: 'fail',
    rule: 's/plain',
    message: 'rule s/plain returned false',
  });
  const broken = newEvaluator([set('s', [rule('broken', 'false', { message: "'x' + object.nope" })])]);
  const r = broken.evaluate(deploy());
  assert.equal(r.kind, 'fail', 'a broken message does not turn a failure into an error');
  assert.match(
    r.kind === 'fail' ? r.message : '',
    /^rule s\/broken returned false \(message, line 1, column 13: .*nope/,
  );
});

test('precedence: the first failure decides, a failure beats an error, an error beats a pass', () => {
  const err = rule('err', 'object.nope == 1');
  const pass = rule('pass', 'true');
  const f1 = rule('f1', 'false', { message: "'first'" });
  const f2 = rule('f2', 'false', { message: "'second'" });
  const cases: [string, HealthRule[], string, string | undefined][] = [
    ['all pass', [pass], 'pass', undefined],
    ['first failure', [pass, f1, f2], 'fail', 's/f1'],
    ['failure after an error', [err, f2], 'fail', 's/f2'],
    ['failure before an error', [f1, err], 'fail', 's/f1'],
    ['error and passes', [pass, err], 'error', 's/err'],
  ];
  for (const [what, rules, kind, id] of cases) {
    const r = newEvaluator([set('s', rules)]).evaluate(deploy());
    assert.equal(r.kind, kind, what);
    if (r.kind === 'fail' || r.kind === 'error') assert.equal(r.rule, id, what);
  }
});

test('matching: group, kinds, wildcards, selector, rule-set order', () => {
  const ev = newEvaluator([
    set('global', [
      rule('core', 'true', { match: { group: '', kinds: ['Pod', 'Service'] } }),
      rule('core-alias', 'true', { match: { group: 'core', kinds: ['Pod'] } }),
      rule('core-absent', 'true', { match: { kinds: ['Pod'] } }),
      rule('apps-any', 'true', { match: { group: 'apps', kinds: ['*'] } }),
      rule('any', 'true', { match: { group: '*', kinds: ['*'] } }),
      rule('any-deploy', 'true', { match: { group: '*', kinds: ['Deployment'] } }),
    ]),
    set(
      'team',
      [
        rule('web-only', 'true', {
          match: { group: 'apps', kinds: ['Deployment'], selector: { matchLabels: { team: 'web' } } },
        }),
      ],
      'ns1',
    ),
  ]);
  const ids = (o: KubeObject) => ev.matching(o).map((r) => r.id);
  const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } };
  assert.deepEqual(ids(pod), ['global/core', 'global/core-alias', 'global/core-absent', 'global/any']);
  assert.deepEqual(ids(deploy()), ['global/apps-any', 'global/any', 'global/any-deploy']);
  assert.deepEqual(ids(deploy({}, {}, { team: 'web' })), [
    'global/apps-any',
    'global/any',
    'global/any-deploy',
    'ns1/team/web-only',
  ]);
  assert.deepEqual(
    ids({ apiVersion: 'example.com/v1', kind: 'deployment', metadata: { name: 'd' } }),
    ['global/any'],
    'kinds are case-sensitive',
  );
  const none = newEvaluator([set('s', [rule('r', 'false')])]);
  assert.deepEqual(none.evaluate(pod), { kind: 'noRule' });
  assert.deepEqual(newEvaluator([]).evaluate(pod), { kind: 'noRule' });
});

test('budget: a nested macro over a large list is stopped at evaluation, a small one passes', () => {
  const ev = newEvaluator([
    set('s', [rule('pairs', 'object.spec.items.all(a, object.spec.items.all(b, a == b || a != b))')]),
  ]);
  const small = ev.evaluate(deploy({ items: [1, 2, 3] }));
  assert.equal(small.kind, 'pass');
  const items = Array.from({ length: 3000 }, (_, i) => i);
  const big = ev.evaluate(deploy({ items }));
  assert.equal(big.kind, 'error');
  assert.match(big.kind === 'error' ? big.message : '', /^rule s\/pairs exceeded its budget \(healthy: /);
});

test('regular expressions are RE2: no catastrophic backtracking', () => {
  const ev = newEvaluator([set('s', [rule('re', "object.metadata.name.matches('^(a+)+$')")])]);
  const t0 = performance.now();
  const r = ev.evaluate({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `${'a'.repeat(40)}!` },
  });
  assert.deepEqual(r.kind, 'fail');
  assert.ok(performance.now() - t0 < 1000, 'RE2 is linear');
});

test("rules see a Secret's keys, never its values: a message cannot print them", () => {
  const ev = newEvaluator([
    set('s', [
      {
        name: 'leak',
        match: { group: '', kinds: ['Secret'] },
        healthy: "has(object.data.password) && object.data.password == 'aHVudGVyMg=='",
        message: "'password is ' + object.data.password + ', type ' + object.type",
      },
    ]),
  ]);
  const r = ev.evaluate({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db' },
    type: 'Opaque',
    data: { password: 'aHVudGVyMg==' },
  });
  assert.deepEqual(r, { kind: 'fail', rule: 's/leak', message: 'password is ***, type Opaque' });
});
