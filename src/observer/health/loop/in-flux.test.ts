// assessable: an entry noted pending for another render is not judged; the rest with a renderRef are.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { R2, R3 } from '../../../api/testsupport.ts';
import type { InventoryEntry, PendingEntry } from '../../../api/types.ts';
import { assessable } from './in-flux.ts';

const key = (name: string) => ({ group: 'apps', kind: 'Deployment', namespace: 'ns', name });
const entry = (name: string, renderRef?: string): InventoryEntry => ({
  ...key(name),
  version: 'v1',
  wave: 0,
  ...(renderRef === undefined ? {} : { renderRef }),
});
const pending = (name: string, renderRef: string): PendingEntry => ({ ...key(name), renderRef });

const cases: readonly {
  readonly name: string;
  readonly entries: readonly InventoryEntry[];
  readonly pending: readonly PendingEntry[];
  readonly want: readonly string[];
}[] = [
  {
    name: 'nothing pending: every recorded entry',
    entries: [entry('a', R3), entry('b', R3)],
    pending: [],
    want: ['a', 'b'],
  },
  { name: 'no renderRef: not judged', entries: [entry('a')], pending: [], want: [] },
  {
    name: 'a rollback to R2 noted over R3 entries (apply under way or cut short): those keys wait',
    entries: [entry('web', R3), entry('config', R3)],
    pending: [pending('web', R2)],
    want: ['config'],
  },
  {
    name: 'pending for the render the entry names (a re-apply of R3): still judged',
    entries: [entry('web', R3)],
    pending: [pending('web', R3)],
    want: ['web'],
  },
  {
    name: 'a pending key with no entry yet is nothing to judge',
    entries: [entry('web', R3)],
    pending: [pending('new', R3)],
    want: ['web'],
  },
];

for (const c of cases)
  test(`assessable: ${c.name}`, () => {
    assert.deepEqual(
      assessable(c.entries, c.pending).map((e) => e.name),
      c.want,
    );
  });
