import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configMapEntry, inventoryOf, R1, R2, R3 } from '../api/testsupport.ts';
import type { InventoryEntry, Release } from '../api/types.ts';
import type { StoredRenderMeta } from '../store/types.ts';
import { healthResult, historyResult, renderResult } from './views.ts';

const T = '2030-01-01T00:00:00Z';

const healthy = {
  type: 'Healthy',
  status: 'Unknown' as const,
  reason: 'Progressing',
  message: '1 object not healthy yet',
  lastTransitionTime: T,
};

const release: Release = {
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Release',
  metadata: { namespace: 'ns', name: 'web' },
  spec: { source: { inline: { manifests: 'x' } }, pin: { renderRef: R3 } },
  status: {
    conditions: [healthy],
    lastAttempted: { renderRef: R2, revision: 'b', time: T, applied: true },
    lastHealthy: { renderRef: R1, revision: 'a', time: T },
    history: [
      { renderRef: R1, revision: 'a', appliedAt: T },
      { renderRef: R2, revision: 'b', appliedAt: T },
    ],
  },
};

const deployment = {
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  namespace: 'ns',
  name: 'web',
  wave: 1,
  state: 'Progressing',
  message: 'available 0',
  renderRef: R2,
  assessedRenderRef: R2,
  firstUnhealthy: T,
  rule: 'default/deployment-available',
} as const;

const inventory = inventoryOf(
  'ns',
  'web',
  [
    deployment as InventoryEntry, // `rule`: a field a newer observer may record
    configMapEntry('ns', 'cfg', 0, R2),
    { group: '', kind: 'Service', namespace: 'ns', name: 'web', renderRef: R2, state: 'Healthy' },
  ],
  [{ name: 'migrate', phase: 'PreSync', renderRef: R2, state: 'Succeeded', finishedAt: T }],
);

test('healthResult: entries by wave, unassessed as Unknown, the rule when recorded, summary from the entries', () => {
  const h = healthResult(release, inventory);
  assert.equal(h.kind, 'ReleaseHealth');
  assert.equal(h.apiVersion, 'api.convoy.kumodo.io/v1alpha1');
  assert.deepEqual(h.metadata, { namespace: 'ns', name: 'web' });
  assert.equal(h.renderRef, R2);
  assert.deepEqual(h.healthy, healthy);
  assert.deepEqual(h.summary, { healthy: 1, progressing: 1, degraded: 0, unknown: 1, total: 3 });
  assert.deepEqual(
    h.entries.map((e) => [e.wave, e.kind, e.state, e.message]),
    [
      [0, 'ConfigMap', 'Unknown', 'not assessed yet'],
      [0, 'Service', 'Healthy', ''],
      [1, 'Deployment', 'Progressing', 'available 0'],
    ],
  );
  assert.deepEqual(h.entries[2], deployment);
  assert.deepEqual(h.hooks, [
    { name: 'migrate', phase: 'PreSync', renderRef: R2, state: 'Succeeded', finishedAt: T },
  ]);
  // The one state `convoy get` and the web UI show: no Ready yet, no healthAssessment, pinned.
  assert.deepEqual(h.state, {
    state: 'Pending',
    tone: 'busy',
    reason: '',
    health: 'NotAssessed',
    pinned: true,
  });
});

test('healthResult: no inventory yet, no Healthy condition yet', () => {
  const bare: Release = { ...release, status: {} };
  const h = healthResult(bare, undefined);
  assert.deepEqual(h.entries, []);
  assert.deepEqual(h.hooks, []);
  assert.equal(h.healthy, undefined);
  assert.equal('healthy' in h, false);
  assert.deepEqual(h.summary, { healthy: 0, progressing: 0, degraded: 0, unknown: 0, total: 0 });
});

test('historyResult: which history entries are stored, and what points at each stored render', () => {
  const meta = (renderRef: string, complete: boolean): StoredRenderMeta => ({
    renderRef,
    revision: 'r',
    storedAt: T,
    chunkCount: 1,
    complete,
    storedBytes: 10,
  });
  const h = historyResult(release, [meta(R3, true), meta(R2, false), meta(R1, true)]);
  assert.equal(h.kind, 'ReleaseHistory');
  assert.deepEqual(
    h.history.map((e) => [e.renderRef, e.stored]),
    [
      [R1, true],
      [R2, false],
    ],
  );
  assert.deepEqual(
    h.stored.map((s) => [s.renderRef, s.complete, s.referencedBy]),
    [
      [R3, true, ['pin']],
      [R2, false, ['history', 'lastAttempted']],
      [R1, true, ['history', 'lastHealthy']],
    ],
  );
});

test('renderResult wraps the stored render', () => {
  const render = { hooks: [], objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }] };
  assert.deepEqual(renderResult(release, R1, render), {
    apiVersion: 'api.convoy.kumodo.io/v1alpha1',
    kind: 'Render',
    metadata: { namespace: 'ns', name: 'web' },
    renderRef: R1,
    hooks: [],
    objects: render.objects,
  });
});

test('renderResult masks Secret values unless showSecrets', () => {
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's' },
    data: { password: 'aHVudGVyMg==' },
  };
  const render = { hooks: [], objects: [secret] };
  assert.deepEqual(renderResult(release, R1, render).objects, [{ ...secret, data: { password: '***' } }]);
  assert.deepEqual(renderResult(release, R1, render, true).objects, [secret]);
});
