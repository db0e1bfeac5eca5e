import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InventoryEntry } from '../../../../api/types.ts';
import {
  appliedCollector,
  inventoryEntriesForWave,
  inventoryEntryOf,
  inventoryRemovals,
  versionOf,
} from './inventory.ts';

const R = `sha256:${'a'.repeat(64)}`;

test('versionOf', () => {
  assert.equal(versionOf('apps/v1'), 'v1');
  assert.equal(versionOf('v1'), 'v1');
  assert.equal(versionOf('example.com/v1beta2'), 'v1beta2');
});

test('inventoryEntriesForWave: keys, version, wave and renderRef of every object', () => {
  const got = inventoryEntriesForWave(
    [
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'prod' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod' } },
    ],
    R,
    -2,
  );
  assert.deepEqual(got, [
    {
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      namespace: 'prod',
      name: 'web',
      wave: -2,
      renderRef: R,
    },
    { group: '', version: 'v1', kind: 'Namespace', namespace: '', name: 'prod', wave: -2, renderRef: R },
  ]);
});

test('appliedCollector: the accepted objects in order, and the version of each apply that returned one', () => {
  const a = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } };
  const b = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'ns' } };
  const c = appliedCollector();
  c.onApplied(a, '41');
  c.onApplied(b, undefined);
  assert.deepEqual(c.applied, [a, b]);
  assert.deepEqual([...c.versions], [[a, '41']]);
  // The entry of an object with a version records it; one without records none.
  assert.equal(inventoryEntryOf(a, R, 0, c.versions).appliedResourceVersion, '41');
  assert.equal('appliedResourceVersion' in inventoryEntryOf(b, R, 0, c.versions), false);
  assert.deepEqual(inventoryEntriesForWave([a, b], R, 1, c.versions), [
    inventoryEntryOf(a, R, 1, c.versions),
    inventoryEntryOf(b, R, 1),
  ]);
});

const e = (kind: string, name: string, namespace = 'ns', group = ''): InventoryEntry => ({
  group,
  kind,
  namespace,
  name,
  renderRef: R,
  state: 'Healthy',
});

const cases: { name: string; current: InventoryEntry[]; desired: string[]; want: string[] }[] = [
  { name: 'nothing to remove', current: [e('ConfigMap', 'a')], desired: ['/ConfigMap/ns/a'], want: [] },
  {
    name: 'entries not desired are removed, whole (with fields of other managers)',
    current: [e('ConfigMap', 'a'), e('ConfigMap', 'b'), e('Deployment', 'a', 'ns', 'apps')],
    desired: ['/ConfigMap/ns/a'],
    want: ['b', 'a'],
  },
  {
    name: 'the namespace is part of the key',
    current: [e('ConfigMap', 'a', 'other')],
    desired: ['/ConfigMap/ns/a'],
    want: ['a'],
  },
  { name: 'empty desired set removes all', current: [e('ConfigMap', 'a')], desired: [], want: ['a'] },
];
for (const c of cases) {
  test(`inventoryRemovals: ${c.name}`, () => {
    const got = inventoryRemovals(c.current, new Set(c.desired));
    assert.deepEqual(
      got.map((x) => x.name),
      c.want,
    );
    for (const x of got) assert.equal(x.state, 'Healthy');
  });
}
