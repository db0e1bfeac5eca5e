// ${NAME} substitution rules, escapes and defaults.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${NAME} in plain strings is the input under test
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkVariables, substitute } from './substitute.ts';

describe('substitute', () => {
  const vars = { ENV: 'prod', REPLICAS: '3', EMPTY: '', LOOP: '${ENV}' };
  const table: [string, string, string][] = [
    ['a variable', 'name: web-${ENV}', 'name: web-prod'],
    ['several, and in keys', '${ENV}: ${REPLICAS}${ENV}', 'prod: 3prod'],
    ['an empty value', 'a: "${EMPTY}"', 'a: ""'],
    ['unknown left as written', 'cmd: echo ${HOME}', 'cmd: echo ${HOME}'],
    ['default when unset', 'tier: ${TIER:=web}', 'tier: web'],
    ['empty default', 'tier: "${TIER:=}"', 'tier: ""'],
    ['value wins over default', 'env: ${ENV:=dev}', 'env: prod'],
    ['escape gives a literal ${', 'a: $${ENV}', 'a: ${ENV}'],
    ['escaped default stays literal', 'a: $${TIER:=x}', 'a: ${TIER:=x}'],
    ['no second pass', 'a: ${LOOP}', 'a: ${ENV}'],
    ['not a variable name', 'a: ${1X} ${a.b} $ENV', 'a: ${1X} ${a.b} $ENV'],
    ['unterminated', 'a: ${ENV', 'a: ${ENV'],
    ['default does not cross lines', 'a: ${X:=b\n}', 'a: ${X:=b\n}'],
    ['$$ elsewhere untouched', 'a: $$ b', 'a: $$ b'],
  ];
  for (const [name, input, want] of table) it(name, () => assert.equal(substitute(input, vars), want));

  it('does not read inherited properties', () => {
    assert.equal(substitute('${constructor} ${toString:=d}', {}), '${constructor} d');
  });
});

describe('checkVariables', () => {
  it('accepts valid names', () => assert.equal(checkVariables({ A: '1', _b2: '' }).ok, true));
  it('names an invalid variable', () => {
    const r = checkVariables({ 'my-var': 'x' });
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : (r.problems[0]?.message ?? ''), /"my-var" is invalid/);
  });
});
