// Table tests of prunePlan, the one prune decision of sync, rollback, the settling of an interrupted sync
// and deletion (docs/design.md#prune): a recorded entry is deleted unless another uid is on its live object
// (or prune: disabled); a pending one only when convoy set this Release's uid on it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { InventoryEntry } from '../../../../api/types.ts';
import { entryKey } from './inventory.ts';
import { type LiveMarks, type PruneInput, prunePlan } from './prune.ts';

const e = (name: string, wave = 0): InventoryEntry => ({
  group: '',
  kind: 'ConfigMap',
  namespace: 'ns',
  name,
  version: 'v1',
  wave,
});
const keys = (...xs: InventoryEntry[]) => new Set(xs.map(entryKey));
// live objects: mine (this uid, set by convoy), other (another uid or a forgery), off (prune: disabled,
// mine), plain (no uid annotation), gone (no live object)
const [mine, other, off, plain, gone] = [e('mine', 1), e('other'), e('off'), e('plain'), e('gone', 2)];
const marks: LiveMarks = {
  disabled: keys(off),
  ours: keys(mine, off),
  foreign: keys(other),
  absent: keys(gone),
};
const names = (xs: readonly InventoryEntry[]) => xs.map((x) => x.name);

describe('prunePlan', () => {
  const rows: [string, PruneInput, string[], string[], number][] = [
    [
      'sync: recorded leavers deleted (highest wave first; absent and unannotated too), another uid and prune: disabled kept',
      {
        recorded: [mine, other, off, plain, gone],
        pending: [],
        policy: { prune: true },
        marks,
        pruneCRDs: false,
      },
      ['gone', 'mine', 'plain'],
      ['other', 'off'],
      1,
    ],
    [
      'sync with syncPolicy.prune false: all forgotten, the foreign still counted for the note',
      { recorded: [mine, other, gone], pending: [], policy: { prune: false }, marks, pruneCRDs: false },
      [],
      ['mine', 'other', 'gone'],
      1,
    ],
    [
      'settling pending keys: only what carries this uid is deleted; absent and unannotated are not, and only live ones count',
      {
        recorded: [],
        pending: [mine, other, off, plain, gone],
        policy: { prune: true },
        marks,
        pruneCRDs: false,
      },
      ['mine'],
      ['other', 'off', 'plain', 'gone'],
      2,
    ],
    [
      'deletion, Delete: recorded as a sync would, pending as the settling would; a key both recorded and pending is recorded',
      {
        recorded: [plain, other],
        pending: [mine, gone, plain],
        policy: { deletionPolicy: 'Delete' },
        marks,
        pruneCRDs: false,
      },
      ['mine', 'plain'],
      ['other', 'gone'],
      1,
    ],
    [
      'deletion, Orphan, live objects not read: everything forgotten',
      {
        recorded: [mine, plain],
        pending: [gone],
        policy: { deletionPolicy: 'Orphan' },
        marks: undefined,
        pruneCRDs: false,
      },
      [],
      ['mine', 'plain', 'gone'],
      0,
    ],
    [
      'deletion, Orphan with marks read: nothing deleted all the same',
      { recorded: [mine], pending: [], policy: { deletionPolicy: 'Orphan' }, marks, pruneCRDs: false },
      [],
      ['mine'],
      0,
    ],
  ];
  for (const [name, input, del, forget, notOurs] of rows) {
    test(name, () => {
      const got = prunePlan(input);
      assert.deepEqual(
        { del: names(got.toDelete), forget: names(got.toForget), notOurs: got.notOurs },
        { del, forget, notOurs },
      );
    });
  }
});

describe('prunePlan: CustomResourceDefinitions', () => {
  const crd: InventoryEntry = {
    group: 'apiextensions.k8s.io',
    kind: 'CustomResourceDefinition',
    namespace: '',
    name: 'widgets.example.com',
    version: 'v1',
    wave: 0,
  };
  const crdMarks: LiveMarks = { ...marks, ours: keys(mine, off, crd) };
  const rows: [string, PruneInput, string[], number][] = [
    [
      'sync: a CRD that left the render only leaves the inventory without the opt-in',
      { recorded: [crd, mine], pending: [], policy: { prune: true }, marks: crdMarks, pruneCRDs: false },
      ['mine'],
      1,
    ],
    [
      'deletion, Delete: the CRD outlives the Release without the opt-in',
      {
        recorded: [crd],
        pending: [],
        policy: { deletionPolicy: 'Delete' },
        marks: crdMarks,
        pruneCRDs: false,
      },
      [],
      1,
    ],
    [
      'pruneCRDs: true deletes it like any other object',
      { recorded: [crd, mine], pending: [], policy: { prune: true }, marks: crdMarks, pruneCRDs: true },
      ['mine', 'widgets.example.com'],
      0,
    ],
    [
      'a CRD prune would not delete anyway is not counted as kept by the rule',
      { recorded: [crd], pending: [], policy: { prune: false }, marks: crdMarks, pruneCRDs: false },
      [],
      0,
    ],
  ];
  for (const [name, input, del, kept] of rows)
    test(name, () => {
      const got = prunePlan(input);
      assert.deepEqual(
        { del: names(got.toDelete).sort(), kept: got.crdsKept },
        { del: [...del].sort(), kept },
      );
    });
});
