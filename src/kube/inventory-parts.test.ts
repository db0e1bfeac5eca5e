import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InventoryKey, ReleaseInventory } from '../api/types.ts';
import {
  assignParts,
  DEFAULT_PART_LIMITS,
  emptyParts,
  entryBytes,
  inventoryLabelValue,
  keyOf,
  LABEL_INVENTORY_OF,
  mergeParts,
  partIndexOf,
  partName,
  releaseNameOf,
  splitByPart,
} from './inventory-parts.ts';

const k = (name: string, ns = 'app'): InventoryKey => ({ group: '', kind: 'ConfigMap', namespace: ns, name });
const keys = (n: number, prefix = 'cm') => Array.from({ length: n }, (_, i) => k(`${prefix}-${i}`));
const partsOf = (m: Map<string, number>, ks: InventoryKey[]) => ks.map((x) => m.get(keyOf(x)));
const small = { maxEntries: 2, maxBytes: 1_000_000 };

describe('partName / partIndexOf', () => {
  const table: [string, number, string][] = [
    ['shop', 0, 'shop'],
    ['shop', 1, 'shop-part-1'],
    ['shop', 12, 'shop-part-12'],
  ];
  for (const [release, index, want] of table) {
    it(`${release} #${index} → ${want}`, () => {
      assert.equal(partName(release, index), want);
      assert.equal(partIndexOf(release, want), index);
    });
  }
  it('a name near 253 characters keeps the suffix, stays unique and within the limit', () => {
    const long = 'a'.repeat(250);
    const name = partName(long, 3);
    assert.ok(name.length <= 253, String(name.length));
    assert.match(name, /-part-3$/);
    assert.notEqual(name, partName(`${'a'.repeat(249)}b`, 3));
    assert.equal(partIndexOf(long, name), 3);
  });
  it('another Release’s part, or a name that only looks like one, is not a part', () => {
    assert.equal(partIndexOf('shop', 'shopx-part-1'), undefined);
    assert.equal(partIndexOf('shop', 'shop-part-0'), undefined);
    assert.equal(partIndexOf('shop', 'other'), undefined);
    assert.equal(partIndexOf('shop-part-1', 'shop-part-1'), 0);
  });
});

describe('assignParts', () => {
  it('fills part 0 first, then opens parts in order', () => {
    const ks = keys(5);
    assert.deepEqual(partsOf(assignParts(new Map(), ks, small), ks), [0, 0, 1, 1, 2]);
  });
  it('a recorded key keeps its part; new keys take the room freed by those that left', () => {
    const ks = keys(4);
    const first = assignParts(new Map(), ks, small); // 0 0 1 1
    const next = [ks[1], ks[3], k('new-a'), k('new-b'), k('new-c')] as InventoryKey[];
    assert.deepEqual(partsOf(assignParts(first, next, small), next), [0, 1, 0, 1, 2]);
  });
  it('duplicate keys are placed once', () => {
    const m = assignParts(new Map(), [k('a'), k('a'), k('b')], small);
    assert.equal(m.size, 2);
  });
  it('bytes bound a part as well as the count', () => {
    const long = (n: string) => k(`${n}-${'x'.repeat(240)}`);
    const ks = [long('a'), long('b'), long('c')];
    const limits = { maxEntries: 1000, maxBytes: entryBytes(ks[0] as InventoryKey) * 2 };
    assert.deepEqual(partsOf(assignParts(new Map(), ks, limits), ks), [0, 0, 1]);
  });
  it('an entry bigger than a whole part gets a part of its own', () => {
    const ks = [k('a'), k('b')];
    assert.deepEqual(partsOf(assignParts(new Map(), ks, { maxEntries: 10, maxBytes: 1 }), ks), [0, 1]);
  });
  it('10,000 keys with the default limits: 10 parts of 1,000', () => {
    const ks = keys(10_000, 'configmap-with-a-name');
    const m = assignParts(new Map(), ks);
    const sizes = [...splitByPart(ks, m).values()].map((l) => l.length);
    assert.deepEqual(sizes, Array(10).fill(DEFAULT_PART_LIMITS.maxEntries));
  });
  it('worst-case keys (253-character names, 63-character namespaces) stay under the byte limit', () => {
    const ks = Array.from({ length: 3000 }, (_, i) =>
      k(`${String(i).padStart(5, '0')}${'n'.repeat(248)}`, 'm'.repeat(63)),
    );
    const m = assignParts(new Map(), ks);
    for (const list of splitByPart(ks, m).values()) {
      const bytes = list.reduce((sum, x) => sum + entryBytes(x), 0);
      assert.ok(bytes <= DEFAULT_PART_LIMITS.maxBytes, String(bytes));
    }
  });
});

describe('splitByPart', () => {
  it('groups in the given order and refuses a key with no part', () => {
    const ks = keys(3);
    const m = assignParts(new Map(), ks, small);
    assert.deepEqual(
      [...splitByPart(ks, m).entries()].map(([p, l]) => [p, l.map((x) => x.name)]),
      [
        [0, ['cm-0', 'cm-1']],
        [1, ['cm-2']],
      ],
    );
    assert.throws(() => splitByPart([k('stray')], m), /has no part/);
  });
});

describe('mergeParts', () => {
  const inv = (name: string, names: string[], extra: Partial<ReleaseInventory> = {}): ReleaseInventory => ({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'ReleaseInventory',
    metadata: {
      name,
      namespace: 'app',
      ...(name.includes('-part-')
        ? { labels: { [LABEL_INVENTORY_OF]: name.replace(/-part-\d+$/, '') } }
        : {}),
    },
    entries: names.map((n) => ({ ...k(n), renderRef: `sha256:${'1'.repeat(64)}` })),
    ...extra,
  });
  it('concatenates in part order, keeps part 0’s hooks and pending, ignores objects of other Releases', () => {
    const head = inv('shop', ['a'], { hooks: [{ name: 'h' }], pending: [k('p')] });
    const merged = mergeParts(head, [
      inv('shop-part-2', ['c']),
      inv('shop-part-1', ['b']),
      inv('other', ['z']),
    ]);
    assert.deepEqual(
      merged.inventory.entries?.map((e) => e.name),
      ['a', 'b', 'c'],
    );
    assert.deepEqual(merged.inventory.hooks, [{ name: 'h' }]);
    assert.deepEqual(merged.inventory.pending, [k('p')]);
    assert.deepEqual([...merged.parts.values()], [0, 0, 1, 2]);
    assert.deepEqual([...merged.objects.keys()].sort(), [0, 1, 2]);
  });
  it('an entry in two parts counts once, in the lowest', () => {
    const merged = mergeParts(inv('shop', ['a']), [inv('shop-part-1', ['a', 'b'])]);
    assert.deepEqual(
      merged.inventory.entries?.map((e) => [e.name, merged.parts.get(keyOf(e))]),
      [
        ['a', 0],
        ['b', 1],
      ],
    );
  });
});

describe('mergeParts: pending and the layout around it', () => {
  const R = `sha256:${'1'.repeat(64)}`;
  const part = (name: string, entries: string[], pending: string[]): ReleaseInventory => ({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'ReleaseInventory',
    metadata: {
      name,
      namespace: 'app',
      ...(name === 'shop' ? {} : { labels: { [LABEL_INVENTORY_OF]: 'shop' } }),
    },
    entries: entries.map((n) => ({ ...k(n), renderRef: R })),
    ...(pending.length > 0 ? { pending: pending.map((n) => ({ ...k(n), renderRef: R })) } : {}),
  });
  it('pending notes of every part are merged, each key placed in its part', () => {
    const m = mergeParts(part('shop', ['a'], ['a', 'p0']), [part('shop-part-1', ['b'], ['p1'])]);
    assert.deepEqual(
      m.inventory.pending?.map((p) => p.name),
      ['a', 'p0', 'p1'],
    );
    assert.deepEqual(
      ['a', 'p0', 'b', 'p1'].map((n) => m.parts.get(keyOf(k(n)))),
      [0, 0, 1, 1],
    );
  });
  it('an object named like a part but not labelled for this Release is not a part', () => {
    const foreign = {
      ...part('shop-part-1', ['x'], []),
      metadata: { name: 'shop-part-1', namespace: 'app' },
    };
    const m = mergeParts(part('shop', ['a'], []), [foreign]);
    assert.deepEqual([...m.objects.keys()], [0]);
  });
  it('without part 0: a shell named like the Release still carries the parts', () => {
    const m = mergeParts(undefined, [part('shop-part-1', ['b'], [])], { namespace: 'app', name: 'shop' });
    assert.equal(m.inventory.metadata.name, 'shop');
    assert.deepEqual(
      m.inventory.entries?.map((e) => e.name),
      ['b'],
    );
    assert.equal(m.objects.has(0), false);
  });
  it('emptyParts: parts 1…N with neither entries nor pending', () => {
    const m = mergeParts(part('shop', [], []), [
      part('shop-part-1', [], []),
      part('shop-part-2', [], ['p']),
      part('shop-part-3', ['c'], []),
    ]);
    assert.deepEqual(emptyParts(m), [1]);
  });
});

describe('inventoryLabelValue / releaseNameOf', () => {
  it('a short name is its own label; a long one a hash within 63 characters', () => {
    assert.equal(inventoryLabelValue('shop'), 'shop');
    const long = 'l'.repeat(200);
    assert.ok(inventoryLabelValue(long).length <= 63);
    assert.notEqual(inventoryLabelValue(long), inventoryLabelValue(`${long}x`));
  });
  const obj = (name: string, label?: string): ReleaseInventory => ({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'ReleaseInventory',
    metadata: { name, ...(label === undefined ? {} : { labels: { [LABEL_INVENTORY_OF]: label } }) },
  });
  const table: [string, ReleaseInventory, string | undefined][] = [
    ['part 0', obj('shop'), 'shop'],
    ['part 0 named like a part', obj('shop-part-1'), 'shop-part-1'],
    ['a part', obj('shop-part-3', 'shop'), 'shop'],
    ['a release named with -part- inside', obj('a-part-1-part-2', 'a-part-1'), 'a-part-1'],
    ['a label that does not match the name', obj('shop-part-3', 'other'), undefined],
  ];
  for (const [what, o, want] of table) it(what, () => assert.equal(releaseNameOf(o), want));
});
