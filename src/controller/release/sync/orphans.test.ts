import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InventoryKey } from '../../../api/types.ts';
import type { Obj } from '../../../render/types.ts';
import { orphanedObjects, recoverOrphans, releaseLabelValue } from './orphans.ts';

const L = releaseLabelValue('prod', 'web');
function live(
  kind: string,
  name: string,
  extra: { labels?: Record<string, string>; annotations?: Record<string, string>; owned?: boolean } = {},
): Obj {
  return {
    apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1',
    kind,
    metadata: {
      name,
      namespace: 'prod',
      labels: extra.labels ?? { 'convoy.kumodo.io/release': L },
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
      ...(extra.owned === undefined
        ? {}
        : {
            ownerReferences: [
              { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'x', uid: 'u', controller: extra.owned },
            ],
          }),
    },
  };
}
const key = (kind: string, name: string, group = ''): InventoryKey => ({
  group,
  kind,
  namespace: 'prod',
  name,
});

test('releaseLabelValue is <namespace>.<name>', () => assert.equal(L, 'prod.web'));

const cases: { name: string; live: Obj[]; inventory: InventoryKey[]; want: string[] }[] = [
  {
    name: 'all recorded: none',
    live: [live('ConfigMap', 'a')],
    inventory: [key('ConfigMap', 'a')],
    want: [],
  },
  {
    name: 'labelled and unrecorded: orphan',
    live: [live('ConfigMap', 'a'), live('Deployment', 'a')],
    inventory: [key('ConfigMap', 'a')],
    want: ['Deployment/a'],
  },
  {
    name: 'the group is part of the key',
    live: [live('Deployment', 'a')],
    inventory: [key('Deployment', 'a', 'extensions')],
    want: ['Deployment/a'],
  },
  {
    name: 'another Release’s label, or none: not ours',
    live: [
      live('ConfigMap', 'a', { labels: { 'convoy.kumodo.io/release': 'prod.api' } }),
      live('ConfigMap', 'b', { labels: {} }),
    ],
    inventory: [],
    want: [],
  },
  {
    name: 'the render store’s Secrets are not orphans; other labelled Secrets are',
    live: [
      { ...live('Secret', 'convoy-render-web-0123456789abcdef-0'), type: 'convoy.kumodo.io/render' },
      { ...live('Secret', 'creds'), type: 'Opaque' },
    ],
    inventory: [],
    want: ['Secret/creds'],
  },
  {
    name: 'hook workloads are tracked elsewhere',
    live: [live('Job', 'migrate', { annotations: { 'convoy.kumodo.io/hook': 'PreSync' } })],
    inventory: [],
    want: [],
  },
  {
    name: 'objects another controller owns are skipped; a non-controller owner does not matter',
    live: [live('Pod', 'p', { owned: true }), live('ConfigMap', 'c', { owned: false })],
    inventory: [],
    want: ['ConfigMap/c'],
  },
];
for (const c of cases) {
  test(`orphanedObjects: ${c.name}`, () => {
    assert.deepEqual(
      orphanedObjects(c.live, c.inventory, L).map((o) => `${o.kind}/${o.metadata.name}`),
      c.want,
    );
  });
}

test('recoverOrphans: in the render → recorded; left it → deleted, or left alone when not prunable', () => {
  const orphans = [
    live('ConfigMap', 'still', { annotations: { 'convoy.kumodo.io/sync-wave': '2' } }),
    live('ConfigMap', 'gone-low'),
    live('ConfigMap', 'gone-high', { annotations: { 'convoy.kumodo.io/sync-wave': '3' } }),
    live('ConfigMap', 'gone-kept'),
  ];
  const render = new Set(['/ConfigMap/prod/still']);
  const got = recoverOrphans(orphans, render, {
    prune: true,
    isPruneDisabled: (k) => k.name === 'gone-kept',
  });
  assert.deepEqual(got.record, [
    { group: '', version: 'v1', kind: 'ConfigMap', namespace: 'prod', name: 'still', wave: 2 },
  ]);
  assert.deepEqual(
    got.toDelete.map((e) => e.name),
    ['gone-high', 'gone-low'],
  );
  assert.deepEqual(
    got.leave.map((e) => e.name),
    ['gone-kept'],
  );
  const noPrune = recoverOrphans(orphans, render, { prune: false, isPruneDisabled: () => false });
  assert.equal(noPrune.toDelete.length, 0);
  assert.equal(noPrune.leave.length, 3);
  assert.equal(noPrune.record.length, 1);
});
