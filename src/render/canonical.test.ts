// Canonical JSON, canonical order and renderRef.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalJson, compareObjects, renderRef, sortCanonical } from './canonical.ts';
import type { Obj } from './types.ts';

describe('canonicalJson', () => {
  const table: [string, unknown, string][] = [
    ['scalars', [null, true, 1.5, 'a"b'], '[null,true,1.5,"a\\"b"]'],
    [
      'nested keys sorted',
      { b: { d: 1, c: 2 }, a: [{ y: 1, x: 2 }] },
      '{"a":[{"x":2,"y":1}],"b":{"c":2,"d":1}}',
    ],
    ['integer-like keys sorted as strings', { '9': 'a', '10': 'b', a: 'c' }, '{"10":"b","9":"a","a":"c"}'],
    ['undefined members dropped', { a: undefined, b: 1 }, '{"b":1}'],
    ['undefined array items are null', [undefined], '[null]'],
    ['code-unit order, upper before lower', { b: 1, B: 2, _: 3 }, '{"B":2,"_":3,"b":1}'],
    ['empty', { a: {}, b: [] }, '{"a":{},"b":[]}'],
  ];
  for (const [name, value, json] of table) it(name, () => assert.equal(canonicalJson(value), json));

  for (const [name, value] of [
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['bigint', 1n],
    ['Date', new Date(0)],
    ['function', () => 1],
  ] as const) {
    it(`rejects ${name}`, () => assert.throws(() => canonicalJson({ a: value }), TypeError));
  }

  it('is JSON that parses back to the same value, whatever the key order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const s = canonicalJson(v);
        assert.deepEqual(JSON.parse(s), JSON.parse(JSON.stringify(v)));
        assert.equal(canonicalJson(JSON.parse(s)), s);
      }),
    );
  });
});

const o = (
  kind: string,
  name: string,
  extra: { apiVersion?: string; namespace?: string; wave?: string } = {},
): Obj => ({
  apiVersion: extra.apiVersion ?? 'v1',
  kind,
  metadata: {
    name,
    ...(extra.namespace === undefined ? {} : { namespace: extra.namespace }),
    ...(extra.wave === undefined ? {} : { annotations: { 'convoy.kumodo.io/sync-wave': extra.wave } }),
  },
});

describe('canonical order', () => {
  it('wave, then Namespace and CRD first, then group, kind, namespace, name', () => {
    const expected = [
      o('ConfigMap', 'early', { namespace: 'a', wave: '-1' }),
      o('Namespace', 'a'),
      o('CustomResourceDefinition', 'x.example.com', { apiVersion: 'apiextensions.k8s.io/v1' }),
      o('ConfigMap', 'c', { namespace: 'a' }),
      o('ConfigMap', 'c', { namespace: 'b' }),
      o('ConfigMap', 'd', { namespace: 'b' }),
      o('Service', 'c', { namespace: 'a' }),
      o('Deployment', 'c', { namespace: 'a', apiVersion: 'apps/v1' }),
      o('Widget', 'w', { namespace: 'a', apiVersion: 'example.com/v1' }),
      o('Namespace', 'late', { wave: '2' }),
    ];
    const shuffled = [...expected].reverse();
    assert.deepEqual(sortCanonical(shuffled), expected);
  });
  it('compareObjects is 0 only for the same key', () => {
    assert.equal(
      compareObjects(o('ConfigMap', 'a', { namespace: 'n' }), o('ConfigMap', 'a', { namespace: 'n' })),
      0,
    );
    assert.notEqual(
      compareObjects(o('ConfigMap', 'a', { namespace: 'n' }), o('ConfigMap', 'b', { namespace: 'n' })),
      0,
    );
  });
});

describe('renderRef', () => {
  it('is sha256 of the canonical JSON of {hooks, objects}', () => {
    const render = { hooks: [], objects: [o('ConfigMap', 'a', { namespace: 'n' })] };
    const json =
      '{"hooks":[],"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"n"}}]}';
    assert.equal(renderRef(render), `sha256:${createHash('sha256').update(json).digest('hex')}`);
  });
  it('ignores other members of the render value', () => {
    const objects = [o('ConfigMap', 'a', { namespace: 'n' })];
    const extra = { hooks: [], objects, revision: 'abc' } as const;
    assert.equal(renderRef(extra), renderRef({ hooks: [], objects }));
  });
  it('changes when a hook moves to the objects', () => {
    const job = o('Job', 'j', { namespace: 'n', apiVersion: 'batch/v1' });
    assert.notEqual(renderRef({ hooks: [job], objects: [] }), renderRef({ hooks: [], objects: [job] }));
  });
});
