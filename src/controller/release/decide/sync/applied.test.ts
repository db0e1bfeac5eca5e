// renderApplied as a table: what in the inventory means R still has work to apply, record or prune.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReleaseInventory } from '../../../../api/types.ts';
import { renderApplied } from './applied.ts';

const key = (name: string) => ({ group: '', kind: 'ConfigMap', namespace: 'app', name });
const entry = (name: string, renderRef: string | undefined, extra = {}) => ({
  ...key(name),
  version: 'v1',
  wave: 0,
  ...(renderRef === undefined ? {} : { renderRef }),
  ...extra,
});
const inv = (x: Partial<ReleaseInventory>): ReleaseInventory =>
  ({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'ReleaseInventory',
    metadata: {},
    ...x,
  }) as ReleaseInventory;

const cases: ReadonlyArray<[string, ReleaseInventory | undefined, boolean, boolean]> = [
  ['every object recorded for R', inv({ entries: [entry('a', 'R'), entry('b', 'R')] }), false, true],
  ['no inventory yet', undefined, false, false],
  [
    'an object recorded for another render',
    inv({ entries: [entry('a', 'R'), entry('b', 'Q')] }),
    false,
    false,
  ],
  ['an object not recorded', inv({ entries: [entry('a', 'R')] }), false, false],
  [
    'a key left pending',
    inv({ entries: [entry('a', 'R'), entry('b', 'R')], pending: [key('c')] }),
    false,
    false,
  ],
  [
    'a leftover of an earlier render to prune',
    inv({ entries: [entry('a', 'R'), entry('b', 'R'), entry('old', 'Q')] }),
    false,
    false,
  ],
  [
    'another manager’s leftover fields only',
    inv({ entries: [entry('a', 'R'), entry('b', 'R'), { ...key('old'), state: 'Healthy' }] }),
    false,
    true,
  ],
  [
    'drift without selfHeal',
    inv({ entries: [entry('a', 'R', { drifted: true }), entry('b', 'R')] }),
    false,
    true,
  ],
  [
    'drift with selfHeal',
    inv({ entries: [entry('a', 'R', { drifted: true }), entry('b', 'R')] }),
    true,
    false,
  ],
];

for (const [name, inventory, selfHeal, want] of cases) {
  test(`renderApplied: ${name} → ${want}`, () => {
    assert.equal(renderApplied({ renderRef: 'R', objects: [key('a'), key('b')], inventory, selfHeal }), want);
  });
}
