// The health loop's inventory write over a client that records each request and reaches no server
// (docs/design.md#assessment, step 8): an empty set writes nothing.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { InventoryEntry, Release, ReleaseInventory } from '../../../api/types.ts';
import type { MergedInventory } from '../../../kube/inventory-parts.ts';
import { RecordingClient } from '../../client-testsupport.ts';
import { assess } from './assess.ts';
import { writeInventoryHealth } from './writes.ts';

const merged = (entries: InventoryEntry[]): MergedInventory => {
  const inventory: ReleaseInventory = {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'ReleaseInventory',
    metadata: { name: 'web', namespace: 'ns', uid: 'u', resourceVersion: '1' },
    entries,
  };
  return { inventory, parts: new Map(), objects: new Map([[0, inventory]]) };
};

const release: Release = {
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Release',
  metadata: { name: 'web', namespace: 'ns' },
  spec: { source: { inline: { manifests: '' } }, healthAssessment: {} },
};

it('H63 "An empty set writes nothing": writeInventoryHealth of no items sends no request', async () => {
  const local = new RecordingClient();
  const written = await writeInventoryHealth(local, merged([]), []);
  assert.deepEqual(written, []);
  assert.deepEqual(local.requests, []);
});

it('H63: assess of an inventory with no entries writes nothing and reads no object', async () => {
  const local = new RecordingClient();
  const target = new RecordingClient();
  const a = await assess(release, {
    ruleSets: [],
    inventory: merged([]),
    resolveTarget: async () => ({ kind: 'local', client: target }),
    local,
    now: () => new Date('2030-01-01T00:00:00Z'),
  });
  assert.deepEqual(a.written, []);
  assert.deepEqual(a.after, []);
  assert.deepEqual(local.requests, [], 'no inventory write');
  assert.deepEqual(target.requests, [], 'no object read');
});
