// The committed deploy/crds/*.yaml must equal what the schemas generate, and the generated schemas must be
// structural. Fails with "run npm run gen:crds" when someone edits one without the other.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { Type } from 'typebox';
import { buildCrds } from './crds.ts';
import { CRD_DIR, renderCrdFiles } from './generate.ts';
import { SchemaError, toStructural } from './structural.ts';

test('deploy/crds matches the schemas (run npm run gen:crds)', async () => {
  const want = renderCrdFiles();
  const have = (await readdir(CRD_DIR)).filter((f) => f.endsWith('.yaml')).sort();
  assert.deepEqual(have, [...want.keys()].sort(), 'CRD files differ: run npm run gen:crds');
  for (const [name, text] of want) {
    const committed = await readFile(join(CRD_DIR, name), 'utf8');
    assert.equal(committed, text, `${name} is stale: run npm run gen:crds`);
  }
});

test('nine CRDs in group convoy.kumodo.io v1alpha1, status subresource on Release, Cluster, ReleaseSet and the notification kinds', () => {
  const crds = buildCrds();
  const summary = crds.map((c) => {
    const spec = c.spec as {
      group: string;
      scope: string;
      names: { kind: string };
      versions: { name: string; subresources?: unknown }[];
    };
    return [
      spec.names.kind,
      spec.group,
      spec.scope,
      spec.versions[0]?.name,
      spec.versions[0]?.subresources !== undefined,
    ];
  });
  assert.deepEqual(summary, [
    ['Release', 'convoy.kumodo.io', 'Namespaced', 'v1alpha1', true],
    ['ReleaseInventory', 'convoy.kumodo.io', 'Namespaced', 'v1alpha1', false],
    ['Cluster', 'convoy.kumodo.io', 'Namespaced', 'v1alpha1', true],
    ['HealthRuleSet', 'convoy.kumodo.io', 'Namespaced', 'v1alpha1', false],
    ['GlobalHealthRuleSet', 'convoy.kumodo.io', 'Cluster', 'v1alpha1', false],
    ['Provider', 'convoy.kumodo.io', 'Namespaced', 'v1alpha1', true],
    ['Alert', 'convoy.kumodo.io', 'Namespaced', 'v1alpha1', true],
    ['Receiver', 'convoy.kumodo.io', 'Namespaced', 'v1alpha1', true],
    ['ReleaseSet', 'convoy.kumodo.io', 'Namespaced', 'v1alpha1', true],
  ]);
});

test('Release printer columns: ready, healthy, rollout, short revision, age, message', () => {
  const release = buildCrds()[0]?.spec as {
    versions: { additionalPrinterColumns: { name: string; priority?: number }[] }[];
  };
  const columns = release.versions[0]?.additionalPrinterColumns
    .filter((c) => c.priority === undefined)
    .map((c) => c.name);
  assert.deepEqual(columns, ['Ready', 'Healthy', 'Rollout', 'Revision', 'Age', 'Message']);
});

test('ReleaseSet printer columns: revision, train, wave, ready, good, age, message; failed cluster in -o wide', () => {
  type Node = { type?: string; properties?: Record<string, Node> };
  const set = buildCrds().find((c) => c.metadata.name === 'releasesets.convoy.kumodo.io')?.spec as {
    versions: {
      schema: { openAPIV3Schema: Node };
      additionalPrinterColumns: { name: string; type: string; jsonPath: string; priority?: number }[];
    }[];
  };
  const columns = set.versions[0]?.additionalPrinterColumns.map((c) => [c.name, c.jsonPath, c.priority ?? 0]);
  assert.deepEqual(columns, [
    ['Revision', '.status.revision', 0],
    ['Train', '.status.train.state', 0],
    ['Wave', '.status.train.wave', 0],
    ['Ready', '.status.summary.ready', 0],
    ['Good', '.status.good.revision', 0],
    ['Age', '.metadata.creationTimestamp', 0],
    ['Message', '.status.message', 0],
    ['Failed', '.status.train.failedCluster', 1],
  ]);
  // Each status column names a field of the schema, of the column's type (a typo shows an empty column).
  for (const c of set.versions[0]?.additionalPrinterColumns ?? []) {
    if (!c.jsonPath.startsWith('.status.')) continue;
    let node: Node | undefined = set.versions[0]?.schema.openAPIV3Schema;
    for (const part of c.jsonPath.slice(1).split('.')) node = node?.properties?.[part];
    assert.equal(node?.type, c.type, `${c.name}: ${c.jsonPath}`);
  }
});

test('generated schemas carry no TypeBox internals', () => {
  const text = JSON.stringify(buildCrds());
  for (const bad of [
    '~kind',
    '~optional',
    '~unsafe',
    '$id',
    '$schema',
    'patternProperties',
    'anyOf',
    'const',
  ]) {
    assert.ok(!text.includes(`"${bad}"`), `found ${bad}`);
  }
});

test('list-map keys: inventory entries, hooks, conditions, waves', () => {
  const keysAt = (crd: number, path: string[]): unknown => {
    const spec = buildCrds()[crd]?.spec as { versions: { schema: { openAPIV3Schema: unknown } }[] };
    let node = spec.versions[0]?.schema.openAPIV3Schema as Record<string, unknown>;
    for (const p of path)
      node = (node.properties as Record<string, Record<string, unknown>>)[p] as Record<string, unknown>;
    return [node['x-kubernetes-list-type'], node['x-kubernetes-list-map-keys']];
  };
  assert.deepEqual(keysAt(1, ['entries']), ['map', ['group', 'kind', 'namespace', 'name']]);
  assert.deepEqual(keysAt(1, ['hooks']), ['map', ['name']]);
  assert.deepEqual(keysAt(0, ['status', 'conditions']), ['map', ['type']]);
  assert.deepEqual(keysAt(2, ['status', 'conditions']), ['map', ['type']]);
  assert.deepEqual(keysAt(0, ['spec', 'waves']), ['map', ['wave']]);
  assert.deepEqual(keysAt(6, ['status', 'notified']), ['map', ['release', 'event']]);
  assert.deepEqual(keysAt(6, ['spec', 'events']), ['set', undefined]);
});

test('toStructural refuses what the apiserver would reject', () => {
  const cases: ReadonlyArray<readonly [string, unknown, RegExp]> = [
    ['Record (patternProperties)', Type.Record(Type.String(), Type.String()), /patternProperties/],
    ['union (anyOf)', Type.Union([Type.String(), Type.Integer()]), /anyOf/],
    ['literal (const)', Type.Literal('x'), /const/],
    ['untyped node', Type.Unknown(), /needs a type/],
    [
      'closed object',
      Type.Object({ a: Type.String() }, { additionalProperties: false }),
      /additionalProperties/,
    ],
    [
      'list-map key neither required nor defaulted',
      Type.Array(Type.Object({ k: Type.Optional(Type.String()) }), {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['k'],
      }),
      /key k must be required/,
    ],
    [
      'CEL rule without a message',
      Type.Object({}, { 'x-kubernetes-validations': [{ rule: 'true' }] }),
      /needs a message/,
    ],
  ];
  for (const [what, schema, want] of cases) {
    assert.throws(
      () => toStructural(schema, 'x'),
      (e: unknown) => e instanceof SchemaError && want.test(e.message),
      what,
    );
  }
});

test('toStructural keeps the Kubernetes extensions and drops TypeBox keys', () => {
  const schema = Type.Object(
    { a: Type.Optional(Type.Integer({ 'x-kubernetes-int-or-string': true })) },
    { 'x-kubernetes-validations': [{ rule: 'true', message: 'm' }] },
  );
  assert.deepEqual(toStructural(schema), {
    type: 'object',
    properties: { a: { type: 'integer', 'x-kubernetes-int-or-string': true } },
    'x-kubernetes-validations': [{ rule: 'true', message: 'm' }],
  });
});
