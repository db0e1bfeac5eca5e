import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InventoryEntry, InventoryKey } from '../../../../api/types.ts';
import { entryKey } from './inventory.ts';
import { type PruneOptions, pruneSet } from './prune.ts';

const R = `sha256:${'b'.repeat(64)}`;
function e(kind: string, name: string, wave?: number, group = '', namespace = 'ns'): InventoryEntry {
  return {
    group,
    kind,
    namespace: kind === 'Namespace' ? '' : namespace,
    name,
    renderRef: R,
    ...(wave === undefined ? {} : { wave }),
  };
}
const disabled =
  (...names: string[]) =>
  (k: InventoryKey) =>
    names.includes(k.name);
const none = disabled();
const keysOf = (...xs: InventoryEntry[]) => new Set(xs.map(entryKey));

const cm0 = e('ConfigMap', 'cm0');
const cm2 = e('ConfigMap', 'cm2', 2);
const dep1 = e('Deployment', 'dep1', 1, 'apps');
const ns1 = e('Namespace', 'ns1', 1);
const crd1 = e('CustomResourceDefinition', 'crd1', 1, 'apiextensions.k8s.io');
const neg = e('ConfigMap', 'neg', -3);
const keep = e('Secret', 'keep', 5);
const all = [cm0, cm2, dep1, ns1, crd1, neg, keep];

const cases: {
  name: string;
  entries: InventoryEntry[];
  render: Set<string>;
  options: PruneOptions;
  del: string[];
  forget: string[];
}[] = [
  {
    name: 'everything still rendered: nothing leaves',
    entries: all,
    render: keysOf(...all),
    options: { prune: true, isPruneDisabled: none },
    del: [],
    forget: [],
  },
  {
    name: 'leavers deleted highest wave first; Namespace and CRD last in their wave',
    entries: all,
    render: keysOf(),
    options: { prune: true, isPruneDisabled: disabled('keep') },
    del: ['cm2', 'dep1', 'crd1', 'ns1', 'cm0', 'neg'],
    forget: ['keep'],
  },
  {
    name: 'prune: disabled on the live object: forgotten, not deleted',
    entries: [cm0, cm2],
    render: keysOf(),
    options: { prune: true, isPruneDisabled: disabled('cm2') },
    del: ['cm0'],
    forget: ['cm2'],
  },
  {
    name: 'syncPolicy.prune false: every leaver is forgotten',
    entries: [cm0, cm2, dep1],
    render: keysOf(dep1),
    options: { prune: false, isPruneDisabled: none },
    del: [],
    forget: ['cm0', 'cm2'],
  },
  {
    name: 'deletion with Delete: everything, whatever the render and syncPolicy.prune say',
    entries: [cm0, dep1, keep],
    render: keysOf(cm0, dep1, keep),
    options: { prune: false, isPruneDisabled: disabled('keep'), deletion: { deletionPolicy: 'Delete' } },
    del: ['dep1', 'cm0'],
    forget: ['keep'],
  },
  {
    name: 'deletion with Orphan: everything is forgotten',
    entries: [cm0, dep1],
    render: keysOf(),
    options: { prune: true, isPruneDisabled: none, deletion: { deletionPolicy: 'Orphan' } },
    del: [],
    forget: ['cm0', 'dep1'],
  },
  {
    name: 'an entry without a wave is wave 0',
    entries: [e('ConfigMap', 'a'), e('ConfigMap', 'b', 1), e('ConfigMap', 'c', -1)],
    render: keysOf(),
    options: { prune: true, isPruneDisabled: none },
    del: ['b', 'a', 'c'],
    forget: [],
  },
];

for (const c of cases) {
  test(`pruneSet: ${c.name}`, () => {
    const got = pruneSet(c.entries, c.render, c.options);
    assert.deepEqual(
      got.toDelete.map((x) => x.name),
      c.del,
    );
    assert.deepEqual(
      got.toForget.map((x) => x.name),
      c.forget,
    );
  });
}

test('pruneSet: same-wave same-rank deletions are in reverse key order (reverse of apply order)', () => {
  const got = pruneSet([e('ConfigMap', 'a'), e('ConfigMap', 'c'), e('ConfigMap', 'b')], new Set(), {
    prune: true,
    isPruneDisabled: none,
  });
  assert.deepEqual(
    got.toDelete.map((x) => x.name),
    ['c', 'b', 'a'],
  );
});
