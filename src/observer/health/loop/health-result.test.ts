// healthResult: built from the inventory and Release status alone.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Release, ReleaseInventory } from '../../../api/types.ts';
import { healthResult } from './health-result.ts';

const release: Release = {
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Release',
  metadata: { name: 'r', namespace: 'ns' },
  spec: { source: { inline: { manifests: '' } } },
  status: {
    lastAttempted: { renderRef: `sha256:${'b'.repeat(64)}`, time: '2030-01-01T00:00:00Z' } as never,
    conditions: [
      {
        type: 'Healthy',
        status: 'Unknown',
        reason: 'Progressing',
        message: 'm',
        lastTransitionTime: '2030-01-01T00:00:00Z',
      },
    ],
  },
};
const a = `sha256:${'a'.repeat(64)}`;
const b = `sha256:${'b'.repeat(64)}`;
const inventory: ReleaseInventory = {
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'ReleaseInventory',
  metadata: { name: 'r', namespace: 'ns' },
  entries: [
    {
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      namespace: 'ns',
      name: 'web',
      wave: 1,
      renderRef: b,
      state: 'Healthy',
      message: '',
      assessedRenderRef: b,
    },
    {
      group: '',
      version: 'v1',
      kind: 'Service',
      namespace: 'ns',
      name: 'svc',
      wave: 0,
      renderRef: b,
      state: 'Healthy',
      assessedRenderRef: a,
    },
    { group: '', version: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'new', renderRef: b },
    {
      group: '',
      kind: 'ConfigMap',
      namespace: 'ns',
      name: 'dropped',
      state: 'Degraded',
      message: 'not found',
    },
  ],
  hooks: [
    {
      name: 'migrate',
      phase: 'PreSync',
      workloadName: 'migrate-b',
      state: 'Succeeded',
      finishedAt: '2030-01-01T00:01:00Z',
    },
  ],
};

it('healthResult reports each entry as stored, whether it is current, and a summary of recorded entries', () => {
  const r = healthResult(inventory, release);
  assert.equal(r.renderRef, b);
  assert.equal(r.condition?.reason, 'Progressing');
  assert.deepEqual(
    r.entries.map((e) => [e.name, e.state, e.current]),
    [
      ['web', 'Healthy', true],
      ['svc', 'Healthy', false],
      ['new', undefined, false],
      ['dropped', 'Degraded', false],
    ],
  );
  assert.deepEqual(r.summary, { healthy: 2, progressing: 0, degraded: 0, unknown: 1, total: 3 });
  assert.equal(r.hooks[0]?.state, 'Succeeded');
  assert.equal(r.entries[0]?.message, undefined);
});

it('no inventory: empty result', () => {
  const r = healthResult(undefined, release);
  assert.deepEqual(r.entries, []);
  assert.equal(r.summary.total, 0);
});
