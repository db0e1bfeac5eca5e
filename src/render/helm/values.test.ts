// valuesFrom: YAML merged, targetPath set as a string, optional entries, and messages that name the
// entry but never show a value.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveValuesFrom, valuesOf } from './values.ts';

describe('valuesOf', () => {
  const secret = { kind: 'Secret' as const, name: 'db' };
  it('reads values.yaml by default', () => {
    assert.deepEqual(valuesOf(secret, 0, 'web', { 'values.yaml': 'db: {password: s3cret}\n' }), {
      ok: true,
      value: { db: { password: 's3cret' } },
    });
  });
  it('sets a key at targetPath, as a string', () => {
    assert.deepEqual(
      valuesOf({ ...secret, valuesKey: 'pw', targetPath: 'db.auth.password' }, 0, 'web', { pw: '0644' }),
      { ok: true, value: { db: { auth: { password: '0644' } } } },
    );
  });
  it('an empty key is no values', () => {
    assert.deepEqual(valuesOf(secret, 0, 'web', { 'values.yaml': '' }), { ok: true, value: {} });
  });
  const problems: [string, Parameters<typeof valuesOf>, RegExp][] = [
    ['missing object', [secret, 2, 'web', undefined], /^Secret not found$/],
    ['missing key', [{ ...secret, valuesKey: 'x' }, 0, 'web', {}], /^key x not found$/],
    ['not YAML', [secret, 0, 'web', { 'values.yaml': 'a: [s3cret\n' }], /^key values.yaml is not valid YAML/],
    ['not a map', [secret, 0, 'web', { 'values.yaml': '- s3cret\n' }], /must hold a map/],
  ];
  for (const [name, args, message] of problems) {
    it(`${name}: names the entry, not the value`, () => {
      const r = valuesOf(...args);
      assert.equal(r.ok, false);
      const p = r.ok ? undefined : r.problems[0];
      assert.match(p?.where ?? '', /^spec\.render\.helm\.valuesFrom\[\d\] \(Secret web\/db\)$/);
      assert.match(p?.message ?? '', message);
      assert.doesNotMatch(JSON.stringify(r), /s3cret/);
    });
  }
  it('an optional entry whose object or key is missing gives nothing', () => {
    assert.deepEqual(valuesOf({ ...secret, optional: true }, 0, 'web', undefined), {
      ok: true,
      value: undefined,
    });
    assert.deepEqual(valuesOf({ ...secret, optional: true }, 0, 'web', {}), { ok: true, value: undefined });
  });
});

describe('resolveValuesFrom', () => {
  it('keeps the order and collects every problem', () => {
    const refs = [
      { kind: 'ConfigMap' as const, name: 'a' },
      { kind: 'ConfigMap' as const, name: 'b' },
      { kind: 'ConfigMap' as const, name: 'c' },
    ];
    const data = [{ 'values.yaml': 'x: 1' }, undefined, undefined];
    const r = resolveValuesFrom(refs, 'web', (_ref, i) => data[i]);
    assert.deepEqual(r.ok ? [] : r.problems.map((p) => p.where), [
      'spec.render.helm.valuesFrom[1] (ConfigMap web/b)',
      'spec.render.helm.valuesFrom[2] (ConfigMap web/c)',
    ]);
    const good = resolveValuesFrom(refs.slice(0, 1), 'web', (_ref, i) => data[i]);
    assert.deepEqual(good, { ok: true, value: [{ x: 1 }] });
  });
});
