// newEvaluator at compile time: errors that name the rule set, rule, field and position, and the type
// inference that lets dynamic and comprehension results through.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { limits } from '../../cel/check.ts';
import { newEvaluator, RuleCompileError } from './evaluator.ts';
import { rule, set } from './testsupport.ts';
import type { HealthRule } from './types.ts';

function compileError(rules: HealthRule[]): RuleCompileError {
  try {
    newEvaluator([set('s', rules)]);
  } catch (e) {
    assert.ok(e instanceof RuleCompileError, `want RuleCompileError, got ${e}`);
    return e;
  }
  assert.fail('expected a compile error');
}

test('compile errors name the rule set, rule, field and position', () => {
  const syntax = compileError([rule('ok', 'true'), rule('bad', 'object.spec.replicas ==\n  == 3')]);
  assert.equal(syntax.ruleSet, 's');
  assert.equal(syntax.rule, 'bad');
  assert.equal(syntax.field, 'healthy');
  assert.deepEqual(syntax.position, { line: 1, column: 22 }, 'where the parser gave up');
  assert.equal(syntax.reason, 'RuleCompileFailed');
  assert.match(syntax.message, /^rule set s, rule bad, healthy, line 1, column 22: /);

  const cases: [string, HealthRule, string, RegExp, { line: number; column: number } | undefined][] = [
    [
      'unknown function',
      rule('r', 'object.status.conditions.exist(c, true)'),
      'healthy',
      /unknown function 'exist'/,
      {
        line: 1,
        column: 25,
      },
    ],
    [
      'undeclared variable',
      rule('r', 'self.spec.replicas == 1'),
      'healthy',
      /undeclared reference to 'self'/,
      {
        line: 1,
        column: 1,
      },
    ],
    [
      'healthy of type string',
      rule('r', "'yes'"),
      'healthy',
      /type string, want bool/,
      { line: 1, column: 1 },
    ],
    ['healthy of type int', rule('r', 'size(object.spec)'), 'healthy', /type int, want bool/, undefined],
    [
      'message of type bool',
      rule('r', 'true', { message: 'object.spec.replicas == 1' }),
      'message',
      /type bool, want string/,
      undefined,
    ],
    [
      'bad selector',
      rule('r', 'true', {
        match: {
          group: 'apps',
          kinds: ['Deployment'],
          selector: { matchExpressions: [{ key: 'a', operator: 'In' }] },
        },
      }),
      'match.selector',
      /needs values/,
      undefined,
    ],
    [
      'no kinds',
      rule('r', 'true', { match: { group: 'apps', kinds: [] } }),
      'match.kinds',
      /non-empty/,
      undefined,
    ],
    [
      'nested too deep',
      rule('r', 'object.a.all(x, object.b.all(y, object.c.all(z, object.d.all(w, true))))'),
      'healthy',
      /nested 4 deep/,
      undefined,
    ],
    [
      'brackets nested too deep',
      rule('r', `${'['.repeat(limits.maxDepth + 1)}${']'.repeat(limits.maxDepth + 1)} == []`),
      'healthy',
      /brackets nested 101 deep; the limit is 100/,
      undefined,
    ],
    [
      'brackets inside string literals do not count',
      rule(
        'r',
        `('${'('.repeat(200)}' == "${'['.repeat(200)}" || r'\\${'{'.repeat(200)}' == '''it's''') ? 1 : 2`,
      ),
      'healthy',
      /expression has type int, want bool/,
      undefined,
    ],
    [
      'operators nested too deep',
      rule('r', `${Array.from({ length: 150 }, () => '1').join(' + ')} == 1`),
      'healthy',
      /expression nested \d+ deep \(operators, calls, brackets\); the limit is 100/,
      undefined,
    ],
    [
      'too many nodes',
      rule('r', `[${Array.from({ length: 2600 }, () => 'a.b').join(',')}] == []`),
      'healthy',
      /more than 5000 nodes/,
      undefined,
    ],
    [
      'too long',
      rule('r', `${'true && '.repeat(limits.maxSourceChars / 8)}true`),
      'healthy',
      /longer than/,
      undefined,
    ],
  ];
  for (const [what, r, field, re, pos] of cases) {
    const e = compileError([r]);
    assert.equal(e.field, field, what);
    assert.match(e.celMessage, re, what);
    if (pos) assert.deepEqual(e.position, pos, what);
  }
  assert.match(compileError([rule('a', 'true'), rule('a', 'true')]).message, /duplicate rule name/);
});

test('type inference lets dynamic and comprehension results through', () => {
  const ev = newEvaluator([
    set('s', [
      rule('exists', "object.status.conditions.exists(c, c.type == 'Available')"),
      rule('ternary', 'has(object.spec.paused) ? object.spec.paused == false : true'),
      rule('dyn', 'object.spec.paused', { match: { group: 'x', kinds: ['Y'] } }),
      rule('msg', 'false', {
        message: "'ready ' + string(object.spec.replicas)",
        match: { group: 'x', kinds: ['Y'] },
      }),
    ]),
  ]);
  assert.equal(ev.rules.length, 4);
});

test('operands of certain types no overload takes are refused when the rule is compiled, naming the rule', () => {
  const cases: [string, HealthRule, string, RegExp, { line: number; column: number } | undefined][] = [
    [
      'a string times an int',
      rule('r', "'a' * 1 == 'aa'"),
      'healthy',
      /^found no matching overload for '_\*_' applied to '\(string, int\)'$/,
      { line: 1, column: 4 },
    ],
    [
      'an int plus a double',
      rule('r', 'size(object.spec) + 1.5 > 2.0'),
      'healthy',
      /'_\+_' applied to '\(int, double\)'/,
      undefined,
    ],
    [
      'in a message',
      rule('r', 'true', { message: "'replicas: ' + 3" }),
      'message',
      /'_\+_' applied to '\(string, int\)'/,
      undefined,
    ],
    ['not of a string', rule('r', "!'yes'"), 'healthy', /'!_' applied to '\(string\)'/, undefined],
    [
      'and of a string',
      rule('r', "has(object.spec) && 'x'"),
      'healthy',
      /'_&&_' applied to '\(bool, string\)'/,
      undefined,
    ],
    ['size of an int', rule('r', 'size(3) == 1'), 'healthy', /'size' applied to '\(int\)'/, undefined],
    [
      'ordering against null',
      rule('r', '1 > null'),
      'healthy',
      /'_>_' applied to '\(int, null_type\)'/,
      undefined,
    ],
    [
      'a ternary on an int',
      rule('r', '1 ? true : false'),
      'healthy',
      /_\?_:_ applied to '\(int, bool, bool\)'/,
      undefined,
    ],
    [
      'inside a macro',
      rule('r', "object.spec.items.all(i, i.name + 1 == 'x' || 'a' - 'b' == '')"),
      'healthy',
      /'_-_' applied to '\(string, string\)'/,
      undefined,
    ],
    ['in a list', rule('r', "'x' in 'xyz'"), 'healthy', /'@in' applied to '\(string, string\)'/, undefined],
  ];
  for (const [what, r, field, re, pos] of cases) {
    const e = compileError([r]);
    assert.equal(e.field, field, what);
    assert.equal(e.rule, 'r', what);
    assert.match(e.celMessage, re, what);
    if (pos) assert.deepEqual(e.position, pos, what);
  }
});

test('what reads the object stays dyn: valid rules of mixed operands are not refused', () => {
  const ev = newEvaluator([
    set('s', [
      rule('arith', 'object.status.readyReplicas * 2 >= object.spec.replicas + 1'),
      rule('size', 'size(object.status.conditions) - 1 >= 0'),
      rule('cross-numeric', '1 < 2.0 && 1u < 2 && double(object.spec.x) / 2.0 > 0.5'),
      rule('strings', "'a' + string(object.spec.replicas) != 'a' && 'b' < 'c'"),
      rule('macros', "object.status.conditions.exists_one(c, c.type == 'Ready') || [1].map(x, x + 1) == [2]"),
      rule('filter', "object.spec.items.filter(i, i.ok).size() > 0 ? true : 'x' in ['x']"),
      rule('in-map', "'app' in object.metadata.labels"),
      rule('bytes', "b'a' + b'b' == b'ab'"),
      rule('lists', '[1] + [2] == [1, 2]'),
      rule('negate', '-object.spec.x < -1 && -1.5 < 0.0'),
    ]),
  ]);
  assert.equal(ev.rules.length, 10);
});
