// newEvaluator at compile time: errors that name the rule set, rule, field and position, and the type
// inference that lets dynamic and comprehension results through.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { limits } from './cel-check.ts';
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
