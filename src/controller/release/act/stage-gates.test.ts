import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Release } from '../../../api/types.ts';
import { suspendGate } from './stage-gates.ts';

const release = (suspend: boolean | undefined): Release => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Release',
  metadata: { name: 'web', namespace: 'ns' },
  spec: { source: { inline: { manifests: 'x' } }, ...(suspend === undefined ? {} : { suspend }) },
});

test('suspendGate: spec.suspend true holds with reason Suspended; false or absent is open', () => {
  const held = suspendGate(release(true));
  assert.equal(held.kind, 'held');
  assert.equal(held.kind === 'held' ? held.reason : '', 'Suspended');
  assert.match(held.kind === 'held' ? held.message : '', /neither syncs nor rolls back.*convoy resume/);
  assert.deepEqual(suspendGate(release(false)), { kind: 'open' });
  assert.deepEqual(suspendGate(release(undefined)), { kind: 'open' });
});
