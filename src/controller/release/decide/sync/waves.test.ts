import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Obj } from '../../../../render/types.ts';
import { groupWaves } from './waves.ts';

function o(kind: string, name: string, wave?: string, apiVersion = 'v1'): Obj {
  return {
    apiVersion,
    kind,
    metadata: {
      name,
      ...(wave === undefined ? {} : { annotations: { 'convoy.kumodo.io/sync-wave': wave } }),
    },
  };
}
const crd = (name: string, wave?: string, serves?: { group: string; kind: string }): Obj => ({
  ...o('CustomResourceDefinition', name, wave, 'apiextensions.k8s.io/v1'),
  ...(serves === undefined ? {} : { spec: { group: serves.group, names: { kind: serves.kind } } }),
});
const widget = { group: 'example.com', kind: 'Widget' };
const names = (waves: ReturnType<typeof groupWaves>) =>
  waves.map((w) => [w.wave, w.objects.map((x) => x.metadata.name)]);

const cases: { name: string; objects: Obj[]; want: [number, string[]][] }[] = [
  { name: 'empty render: no waves', objects: [], want: [] },
  {
    name: 'no annotation is wave 0; input order kept for ordinary kinds',
    objects: [o('ConfigMap', 'b'), o('Service', 'a'), o('ConfigMap', 'a')],
    want: [[0, ['b', 'a', 'a']]],
  },
  {
    name: 'waves ascend, negative first, numerically not lexically',
    objects: [
      o('ConfigMap', 'ten', '10'),
      o('ConfigMap', 'two', '2'),
      o('ConfigMap', 'neg', '-1'),
      o('ConfigMap', 'zero'),
    ],
    want: [
      [-1, ['neg']],
      [0, ['zero']],
      [2, ['two']],
      [10, ['ten']],
    ],
  },
  {
    name: 'within a wave: Namespaces, then CRDs, then the rest',
    objects: [
      o('ConfigMap', 'cm'),
      crd('crd'),
      o('Namespace', 'ns'),
      o('Secret', 's'),
      o('Namespace', 'ns2'),
    ],
    want: [[0, ['ns', 'ns2', 'crd', 'cm', 's']]],
  },
  {
    name: 'a Namespace of a later wave stays in its wave',
    objects: [o('ConfigMap', 'cm'), o('Namespace', 'late', '1'), crd('early', '-1')],
    want: [
      [-1, ['early']],
      [0, ['cm']],
      [1, ['late']],
    ],
  },
  {
    name: 'a CRD goes to the earliest wave of its custom resources, first in it after Namespaces',
    objects: [
      o('Widget', 'w2', '2', 'example.com/v1'),
      o('ConfigMap', 'cm', '-1'),
      o('Widget', 'w0', undefined, 'example.com/v1'),
      crd('widgets', '3', widget),
    ],
    want: [
      [-1, ['cm']],
      [0, ['widgets', 'w0']],
      [2, ['w2']],
    ],
  },
  {
    name: 'a CRD earlier than its custom resources stays in its own wave',
    objects: [o('Widget', 'w', '1', 'example.com/v1'), crd('widgets', '0', widget)],
    want: [
      [0, ['widgets']],
      [1, ['w']],
    ],
  },
  {
    name: 'a CRD serving a kind of another group is not moved',
    objects: [o('Widget', 'w', '0', 'other.io/v1'), crd('widgets', '1', widget)],
    want: [
      [0, ['w']],
      [1, ['widgets']],
    ],
  },
  {
    name: 'a kind named Namespace in another group is ordinary',
    objects: [o('ConfigMap', 'cm'), o('Namespace', 'fake', undefined, 'example.com/v1')],
    want: [[0, ['cm', 'fake']]],
  },
];

for (const c of cases) {
  test(`groupWaves: ${c.name}`, () => assert.deepEqual(names(groupWaves(c.objects)), c.want));
}

test('groupWaves: an invalid wave annotation throws (renders are validated before)', () => {
  assert.throws(() => groupWaves([o('ConfigMap', 'x', 'one')]), RangeError);
});
