// Table test of the guarded JSON patch that removes inventory items.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InventoryEntry } from '../api/types.ts';
import { removalPatch } from './inventory.ts';

const e = (kind: string, name: string, namespace = 'ns', group = ''): InventoryEntry => ({
  group,
  kind,
  namespace,
  name,
});

test('removalPatch: highest index first, each remove guarded by test ops on all four keys', () => {
  const entries = [
    e('ConfigMap', 'a'),
    e('Deployment', 'web', 'ns', 'apps'),
    e('ConfigMap', 'b'),
    e('Namespace', 'ns', ''),
  ];
  const ops = removalPatch({ entries }, [e('ConfigMap', 'a'), e('Namespace', 'ns', '')]);
  assert.deepEqual(ops, [
    { op: 'test', path: '/entries/3/group', value: '' },
    { op: 'test', path: '/entries/3/kind', value: 'Namespace' },
    { op: 'test', path: '/entries/3/namespace', value: '' },
    { op: 'test', path: '/entries/3/name', value: 'ns' },
    { op: 'remove', path: '/entries/3' },
    { op: 'test', path: '/entries/0/group', value: '' },
    { op: 'test', path: '/entries/0/kind', value: 'ConfigMap' },
    { op: 'test', path: '/entries/0/namespace', value: 'ns' },
    { op: 'test', path: '/entries/0/name', value: 'a' },
    { op: 'remove', path: '/entries/0' },
  ]);
});

test('removalPatch: keys differing in one field do not match', () => {
  const entries = [e('Deployment', 'web', 'ns', 'apps')];
  for (const key of [
    e('Deployment', 'web', 'ns', ''),
    e('Deployment', 'web', 'other', 'apps'),
    e('StatefulSet', 'web', 'ns', 'apps'),
    e('Deployment', 'api', 'ns', 'apps'),
  ]) {
    assert.deepEqual(removalPatch({ entries }, [key]), [], JSON.stringify(key));
  }
});

test('removalPatch: hooks by name; nothing to do gives no ops', () => {
  const hooks = [{ name: 'migrate' }, { name: 'smoke' }];
  assert.deepEqual(removalPatch({ hooks }, [], ['smoke']), [
    { op: 'test', path: '/hooks/1/name', value: 'smoke' },
    { op: 'remove', path: '/hooks/1' },
  ]);
  assert.deepEqual(removalPatch({}, [e('ConfigMap', 'a')], ['x']), []);
});
