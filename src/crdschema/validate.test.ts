// Table tests of the local check of a custom resource against its CRD (docs/design.md#reconcile-order):
// what it refuses (each keyword, a false rule), what it must leave to the server (a rule it cannot read
// as the server does, a format, a pruned field, a default), and hostile schemas bounded.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testCrd } from '../api/testsupport.ts';
import { crdSchemas, type Manifest, type SchemaNode } from './find.ts';
import { defaultLimits, type Verdict, validateObject } from './validate.ts';

const crd = (schema: SchemaNode, version: Record<string, unknown> = {}): Manifest =>
  testCrd('example.com', 'Gadget', 'gadgets', schema, version);

const gadget = (rest: Record<string, unknown>): Manifest =>
  ({
    apiVersion: 'example.com/v1',
    kind: 'Gadget',
    metadata: { name: 'g', namespace: 'ns' },
    ...rest,
  }) as Manifest;

/** A root schema whose spec is `spec`. */
const withSpec = (spec: SchemaNode): SchemaNode => ({ type: 'object', properties: { spec } });
const obj = (properties: Record<string, SchemaNode>, more: SchemaNode = {}): SchemaNode => ({
  type: 'object',
  properties,
  ...more,
});

function check(schema: SchemaNode, spec: unknown, version?: Record<string, unknown>): Verdict {
  return validateObject(crdSchemas([crd(schema, version)]), gadget({ spec }));
}

/** path: message of a refusal, 'valid' (skipped notes aside). */
function outcome(v: Verdict): string {
  switch (v.kind) {
    case 'invalid':
      return `${v.path}: ${v.message}`;
    case 'valid':
      return 'valid';
    case 'noSchema':
      return 'noSchema';
  }
}

interface Case {
  readonly name: string;
  readonly spec: SchemaNode;
  readonly value: unknown;
  /** 'valid', or a RegExp the refusal `path: message` matches. */
  readonly want: 'valid' | RegExp;
  /** A skip note that must be among those of a valid verdict. */
  readonly skips?: RegExp;
}

const size = (s: SchemaNode) => obj({ size: s });

const cases: readonly Case[] = [
  { name: 'in range', spec: size({ type: 'integer', maximum: 10 }), value: { size: 3 }, want: 'valid' },
  {
    name: 'maximum',
    spec: size({ type: 'integer', maximum: 10 }),
    value: { size: 99 },
    want: /^spec\.size: must be at most 10, is 99$/,
  },
  {
    name: 'exclusive minimum',
    spec: size({ type: 'number', minimum: 0, exclusiveMinimum: true }),
    value: { size: 0 },
    want: /^spec\.size: must be more than 0/,
  },
  {
    name: 'type integer',
    spec: size({ type: 'integer' }),
    value: { size: 'big' },
    want: /^spec\.size: must be of type integer, not string$/,
  },
  {
    name: 'integer, not 1.5',
    spec: size({ type: 'integer' }),
    value: { size: 1.5 },
    want: /type integer, not number/,
  },
  { name: 'number takes an integer', spec: size({ type: 'number' }), value: { size: 2 }, want: 'valid' },
  {
    name: 'type object',
    spec: obj({ a: obj({}) }),
    value: { a: [1] },
    want: /^spec\.a: must be of type object, not array/,
  },
  {
    name: 'boolean',
    spec: obj({ on: { type: 'boolean' } }),
    value: { on: 'yes' },
    want: /^spec\.on: must be of type boolean/,
  },
  {
    name: 'required',
    spec: obj({ size: { type: 'integer' } }, { required: ['size'] }),
    value: {},
    want: /^spec\.size: Required value$/,
  },
  {
    name: 'required, filled by its default',
    spec: obj({ size: { type: 'integer', default: 1 } }, { required: ['size'] }),
    value: {},
    want: 'valid',
  },
  {
    name: 'maxLength counts code points',
    spec: obj({ s: { type: 'string', maxLength: 2 } }),
    value: { s: '😀😀' },
    want: 'valid',
  },
  {
    name: 'maxLength',
    spec: obj({ s: { type: 'string', maxLength: 2 } }),
    value: { s: 'abc' },
    want: /^spec\.s: may have at most 2 characters, has 3$/,
  },
  {
    name: 'minLength',
    spec: obj({ s: { type: 'string', minLength: 1 } }),
    value: { s: '' },
    want: /^spec\.s: must have at least 1 characters, has 0$/,
  },
  {
    name: 'pattern (RE2, unanchored)',
    spec: obj({ s: { type: 'string', pattern: '[a-z]+-[0-9]' } }),
    value: { s: 'x_ab-1' },
    want: 'valid',
  },
  {
    name: 'pattern refused',
    spec: obj({ s: { type: 'string', pattern: '^[a-z]+$' } }),
    value: { s: 'ABC' },
    want: /^spec\.s: must match the pattern "\^\[a-z\]\+\$"$/,
  },
  {
    name: 'a pattern RE2 cannot take is left to the server',
    spec: obj({ s: { type: 'string', pattern: '^(?=a)b' } }),
    value: { s: 'zzz' },
    want: 'valid',
    skips: /pattern/,
  },
  {
    name: 'enum',
    spec: obj({ mode: { type: 'string', enum: ['a', 'b'] } }),
    value: { mode: 'c' },
    want: /^spec\.mode: must be one of "a", "b"; is another string$/,
  },
  {
    name: 'enum member',
    spec: obj({ n: { type: 'integer', enum: [1, 2] } }),
    value: { n: 2 },
    want: 'valid',
  },
  {
    name: 'items, with the index in the path',
    spec: obj({ l: { type: 'array', items: { type: 'integer', minimum: 0 } } }),
    value: { l: [1, -1] },
    want: /^spec\.l\[1\]: must be at least 0, is -1$/,
  },
  {
    name: 'maxItems',
    spec: obj({ l: { type: 'array', maxItems: 1, items: { type: 'string' } } }),
    value: { l: ['a', 'b'] },
    want: /^spec\.l: may have at most 1 items, has 2$/,
  },
  {
    name: 'minItems',
    spec: obj({ l: { type: 'array', minItems: 1, items: { type: 'string' } } }),
    value: { l: [] },
    want: /at least 1 items/,
  },
  {
    name: 'additionalProperties',
    spec: obj({ m: { type: 'object', additionalProperties: { type: 'string' } } }),
    value: { m: { 'a-b': 'x', c: 1 } },
    want: /^spec\.m\.c: must be of type string/,
  },
  {
    name: 'maxProperties',
    spec: obj({ m: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } } }),
    value: { m: { a: 'x', b: 'y' } },
    want: /^spec\.m: may have at most 1 properties, has 2$/,
  },
  {
    name: 'unknown fields are pruned, not refused, nor counted',
    spec: obj({ a: { type: 'string' } }, { maxProperties: 1 }),
    value: { a: 'x', unknown: 5 },
    want: 'valid',
  },
  {
    name: 'preserve-unknown-fields keeps anything',
    spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    value: { anything: [{ at: 'all' }] },
    want: 'valid',
  },
  {
    name: 'nullable',
    spec: obj({ a: { type: 'string', nullable: true } }),
    value: { a: null },
    want: 'valid',
  },
  {
    name: 'a null without nullable is pruned: then required',
    spec: obj({ a: { type: 'string' } }, { required: ['a'] }),
    value: { a: null },
    want: /^spec\.a: Required value$/,
  },
  {
    name: 'int-or-string',
    spec: obj({ port: { 'x-kubernetes-int-or-string': true } }),
    value: { port: 'http' },
    want: 'valid',
  },
  {
    name: 'int-or-string refuses a bool',
    spec: obj({ port: { 'x-kubernetes-int-or-string': true } }),
    value: { port: true },
    want: /^spec\.port: must be an integer or a string, not boolean$/,
  },
  {
    name: 'embedded resource needs a kind',
    spec: obj({
      t: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
      },
    }),
    value: { t: { apiVersion: 'v1', metadata: { name: 'x' } } },
    want: /^spec\.t\.kind: must not be empty/,
  },
  {
    name: 'embedded resource',
    spec: obj({
      t: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
      },
    }),
    value: { t: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } } },
    want: 'valid',
  },
  {
    name: 'a CEL rule, false: its message and fieldPath',
    spec: obj(
      { min: { type: 'integer' }, max: { type: 'integer' } },
      {
        'x-kubernetes-validations': [
          { rule: 'self.min <= self.max', message: 'min above max', fieldPath: '.min' },
        ],
      },
    ),
    value: { min: 5, max: 2 },
    want: /^spec\.min: min above max$/,
  },
  {
    name: 'a CEL rule, true',
    spec: obj(
      { min: { type: 'integer' }, max: { type: 'integer' } },
      { 'x-kubernetes-validations': [{ rule: 'self.min <= self.max' }] },
    ),
    value: { min: 1, max: 2 },
    want: 'valid',
  },
  {
    name: 'a CEL rule without message says the rule',
    spec: obj({ n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self % 2 == 0' }] } }),
    value: { n: 3 },
    want: /^spec\.n: failed rule: self % 2 == 0$/,
  },
  {
    name: 'a CEL rule sees defaults, not pruned fields',
    spec: obj(
      { mode: { type: 'string', default: 'fast' } },
      { 'x-kubernetes-validations': [{ rule: 'has(self.mode) && !has(self.extra)', message: 'm' }] },
    ),
    value: { extra: 1 },
    want: 'valid',
  },
  {
    name: 'a number is a double to CEL, an integer an int',
    spec: obj(
      { r: { type: 'number' }, n: { type: 'integer' } },
      { 'x-kubernetes-validations': [{ rule: 'self.r == 2.0 && self.n == 2', message: 'm' }] },
    ),
    value: { r: 2, n: 2 },
    want: 'valid',
  },
  {
    name: 'a rule on each item of a list',
    spec: obj({
      l: {
        type: 'array',
        items: obj(
          { name: { type: 'string' } },
          { 'x-kubernetes-validations': [{ rule: "self.name != ''", message: 'a name' }] },
        ),
      },
    }),
    value: { l: [{ name: 'a' }, { name: '' }] },
    want: /^spec\.l\[1\]: a name$/,
  },
  {
    name: 'a transition rule is skipped on create',
    spec: obj({
      n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'grows' }] },
    }),
    value: { n: 1 },
    want: 'valid',
    skips: /transition rule/,
  },
  {
    name: 'a rule with a function this CEL lacks is skipped, never refused',
    spec: obj({
      q: {
        type: 'string',
        'x-kubernetes-validations': [{ rule: "quantity(self).isGreaterThan(quantity('1'))", message: 'q' }],
      },
    }),
    value: { q: '0' },
    want: 'valid',
    skips: /not in this CEL environment: unknown function/,
  },
  {
    name: 'a rule that errors here is skipped (lists.indexOf is the server’s, not ours)',
    spec: obj({
      l: {
        type: 'array',
        items: { type: 'string' },
        'x-kubernetes-validations': [{ rule: "self.indexOf('a') == 5", message: 'x' }],
      },
    }),
    value: { l: ['a'] },
    want: 'valid',
    skips: /indexOf/,
  },
  {
    name: 'a rule over a date-time the server types as timestamp is skipped',
    spec: obj({
      at: {
        type: 'string',
        format: 'date-time',
        'x-kubernetes-validations': [{ rule: "self == 'x'", message: 'x' }],
      },
    }),
    value: { at: '2026-01-01T00:00:00Z' },
    want: 'valid',
    skips: /types otherwise/,
  },
  {
    name: 'an escaped property name is skipped',
    spec: obj(
      { 'foo-bar': { type: 'string' } },
      { 'x-kubernetes-validations': [{ rule: 'has(self.foo__dash__bar)', message: 'm' }] },
    ),
    value: { 'foo-bar': 'x' },
    want: 'valid',
    skips: /escaped/,
  },
  {
    name: 'a comparison of a set list is skipped',
    spec: obj(
      { l: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } },
      { 'x-kubernetes-validations': [{ rule: "self.l == ['a', 'b']", message: 'm' }] },
    ),
    value: { l: ['b', 'a'] },
    want: 'valid',
    skips: /unordered/,
  },
];

describe('validateObject', () => {
  for (const c of cases) {
    test(c.name, () => {
      const v = check(withSpec(c.spec), c.value);
      if (c.want === 'valid') assert.equal(outcome(v), 'valid');
      else assert.match(outcome(v), c.want);
      if (c.skips !== undefined) {
        assert.equal(v.kind, 'valid');
        assert.ok(v.kind === 'valid' && v.skipped.some((s) => c.skips?.test(s) === true), JSON.stringify(v));
      }
    });
  }

  test('a root rule reads metadata.name, apiVersion and kind', () => {
    const schema = {
      type: 'object',
      'x-kubernetes-validations': [
        {
          rule: "self.metadata.name.startsWith('x') && self.kind == 'Gadget'",
          message: 'the name starts with x',
        },
      ],
    };
    const v = check(schema, {});
    assert.equal(outcome(v), ': the name starts with x');
  });

  test('status is dropped on create with the status subresource', () => {
    const schema = {
      type: 'object',
      properties: { status: obj({ n: { type: 'integer' } }) },
      required: ['status'],
    };
    const cr = gadget({ status: { n: 'x' } });
    assert.match(
      outcome(validateObject(crdSchemas([crd(schema)]), cr)),
      /^status\.n: must be of type integer/,
    );
    assert.equal(
      outcome(validateObject(crdSchemas([crd(schema, { subresources: { status: {} } })]), cr)),
      'valid',
    );
  });

  test('only a served version of a v1 CRD of the render', () => {
    const schema = withSpec(size({ type: 'integer', maximum: 1 }));
    const cr = gadget({ spec: { size: 9 } });
    assert.equal(validateObject(crdSchemas([crd(schema, { served: false })]), cr).kind, 'noSchema');
    assert.equal(validateObject(crdSchemas([]), cr).kind, 'noSchema');
    assert.equal(
      validateObject(crdSchemas([crd(schema)]), { ...cr, apiVersion: 'example.com/v2' } as Manifest).kind,
      'noSchema',
    );
  });
});

describe('hostile schemas are bounded', () => {
  test('nesting deeper than the limit is left to the server, without a stack overflow', () => {
    let schema: SchemaNode = { type: 'integer', maximum: 0 };
    let value: unknown = 1;
    for (let i = 0; i < 5000; i++) {
      schema = obj({ a: schema });
      value = { a: value };
    }
    const v = check(withSpec(schema), value);
    assert.equal(v.kind, 'valid');
    assert.ok(
      v.kind === 'valid' && v.skipped.some((s) => /nested deeper than 64/.test(s)),
      JSON.stringify(v),
    );
  });

  test('a huge enum over many items runs out of steps, not of time', () => {
    const members = Array.from({ length: 200_000 }, (_, i) => `m${i}`);
    const spec = obj({ l: { type: 'array', items: { type: 'string', enum: members } } });
    const started = process.cpuUsage();
    const v = check(withSpec(spec), { l: Array.from({ length: 1000 }, () => 'm199999') });
    const used = process.cpuUsage(started);
    const ms = (used.user + used.system) / 1000;
    assert.equal(v.kind, 'valid');
    assert.ok(
      v.kind === 'valid' && v.skipped.some((s) => /more than 1000000 steps/.test(s)),
      JSON.stringify(v),
    );
    assert.ok(ms < 20 * defaultLimits.maxMs, `${ms} ms of CPU`);
  });

  test("many long rules stop compiling at the object's CPU budget", () => {
    const long = (i: number) =>
      `${Array.from({ length: 120 }, (_, k) => `self.n == ${k}`).join(' || ')} || self.n == ${1000 + i}`;
    const spec = obj(
      { n: { type: 'integer' } },
      {
        'x-kubernetes-validations': Array.from({ length: 2000 }, (_, i) => ({ rule: long(i), message: 'm' })),
      },
    );
    const started = process.cpuUsage();
    const v = check(withSpec(spec), { n: 1 });
    const used = process.cpuUsage(started);
    const ms = (used.user + used.system) / 1000;
    assert.equal(v.kind, 'valid');
    assert.ok(v.kind === 'valid' && v.skipped.some((s) => /200 ms/.test(s)), JSON.stringify(v));
    assert.ok(ms < 10 * defaultLimits.maxMs, `${ms} ms of CPU`);
  });

  test('a pattern costly to compile or to run is left to the server', () => {
    const costly = (pattern: string, value: string) =>
      check(withSpec(obj({ s: { type: 'string', pattern } })), { s: value });
    for (const [pattern, value] of [
      ['\\pL{1000}', 'a'],
      ['^[a-z]{600}[0-9]{600}$', 'a'],
      ['^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', '-'.repeat(200_000)],
    ] as const) {
      const v = costly(pattern, value);
      assert.ok(
        v.kind === 'valid' && v.skipped.some((s) => s.includes('pattern')),
        `${pattern}: ${JSON.stringify(v)}`,
      );
    }
    assert.match(outcome(costly('^[a-z0-9]{1,63}(\\.[a-z0-9]{1,63})*$', 'a.-')), /must match the pattern/);
  });

  test('a costly rule is stopped by the CEL budget and skipped', () => {
    const spec = obj(
      { l: { type: 'array', items: { type: 'integer' } } },
      {
        'x-kubernetes-validations': [
          { rule: 'self.l.all(a, self.l.all(b, self.l.all(c, a + b + c >= 0)))', message: 'never false' },
        ],
      },
    );
    const v = check(withSpec(spec), { l: Array.from({ length: 300 }, (_, i) => i) });
    assert.equal(v.kind, 'valid');
    assert.ok(v.kind === 'valid' && v.skipped.some((s) => /budget/.test(s)), JSON.stringify(v));
  });
});
