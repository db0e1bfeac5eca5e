// entryFieldsChanged by table: a new item, a differing one, and (only with `holds`) an entry left out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configMapEntry, R1 } from '../api/testsupport.ts';
import type { InventoryEntry } from '../api/types.ts';
import { entryFieldsChanged } from './entry-fields.ts';

const item = (name: string, message: string) => ({
  group: '',
  kind: 'ConfigMap',
  namespace: 'ns',
  name,
  message,
});
const entry = (name: string, message?: string): InventoryEntry =>
  configMapEntry('ns', name, 0, R1, message === undefined ? {} : { message });
const same = (c: InventoryEntry, it: { readonly message: string }) => c.message === it.message;
const holds = (c: InventoryEntry) => c.message !== undefined;

test('entryFieldsChanged: only a new item, a differing one, or a held field the apply releases', () => {
  const items = [item('a', 'x'), item('b', 'y')];
  const rows: [string, InventoryEntry[], boolean, boolean][] = [
    // name, cached, changed without holds, changed with holds
    ['steady', [entry('a', 'x'), entry('b', 'y')], false, false],
    ['a value differs', [entry('a', 'x'), entry('b', 'z')], true, true],
    ['an item not cached yet', [entry('a', 'x')], true, true],
    ['an entry left out that holds nothing', [entry('a', 'x'), entry('b', 'y'), entry('c')], false, false],
    [
      'an entry left out that holds a field',
      [entry('a', 'x'), entry('b', 'y'), entry('c', 'w')],
      false,
      true,
    ],
  ];
  for (const [name, cached, plain, withHolds] of rows) {
    assert.equal(entryFieldsChanged(cached, items, same), plain, name);
    assert.equal(entryFieldsChanged(cached, items, same, holds), withHolds, `${name} (holds)`);
  }
});
