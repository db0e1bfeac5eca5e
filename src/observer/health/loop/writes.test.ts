// The health loop's inventory write over a client that records each request and reaches no server
// (docs/design.md#assessment, step 8): an empty set writes nothing.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { RecordingClient } from '../../client-testsupport.ts';
import { assess } from './assess.ts';
import { assessedRelease, mergedInventory } from './testsupport.ts';
import { writeInventoryHealth } from './writes.ts';

it('H63 "An empty set writes nothing": writeInventoryHealth of no items sends no request', async () => {
  const local = new RecordingClient();
  const written = await writeInventoryHealth(local, mergedInventory([]), []);
  assert.deepEqual(written, []);
  assert.deepEqual(local.requests, []);
});

it('H63: assess of an inventory with no entries writes nothing and reads no object', async () => {
  const local = new RecordingClient();
  const target = new RecordingClient();
  const a = await assess(assessedRelease, {
    ruleSets: [],
    inventory: mergedInventory([]),
    resolveTarget: async () => ({ kind: 'local', client: target }),
    local,
    now: () => new Date('2030-01-01T00:00:00Z'),
  });
  assert.deepEqual(a.written, []);
  assert.deepEqual(a.after, []);
  assert.deepEqual(local.requests, [], 'no inventory write');
  assert.deepEqual(target.requests, [], 'no object read');
});
