// Table tests of assessItem, one entry's state from its live object (docs/design.md#entry-state), and of
// priorAndAnchors.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InventoryEntry, ReleaseInventory } from '../../../api/types.ts';
import type { MergedInventory } from '../../../kube/inventory-parts.ts';
import type { LiveRead } from '../../live-reads.ts';
import { newEvaluator } from '../evaluator.ts';
import { deploymentEntry } from '../fixtures.ts';
import { deploy, rule, set } from '../testsupport.ts';
import { assessItem, priorAndAnchors } from './assess.ts';

const R = 'sha256:r';
const NOW = new Date('2030-01-01T00:10:00Z');
const ANCHOR = '2030-01-01T00:00:00Z';
const evaluator = newEvaluator([
  set('s', [rule('avail', 'object.status.availableReplicas == object.spec.replicas')]),
]);
const ready = deploy({}, { availableReplicas: 3 });
const notReady = deploy({}, { availableReplicas: 1 });

describe('assessItem', () => {
  const rows: [string, InventoryEntry, LiveRead, number | undefined, Partial<InventoryEntry>][] = [
    [
      'a passing object: Healthy, the anchor cleared',
      deploymentEntry('web', { renderRef: R, firstUnhealthy: ANCHOR, state: 'Progressing' }),
      { kind: 'found', object: ready },
      undefined,
      { state: 'Healthy', firstUnhealthy: undefined, rule: 's/avail', assessedRenderRef: R },
    ],
    [
      'a failing object without a deadline: Progressing, anchored now',
      deploymentEntry('web', { renderRef: R }),
      { kind: 'found', object: notReady },
      undefined,
      { state: 'Progressing', firstUnhealthy: '2030-01-01T00:10:00Z', rule: 's/avail', assessedRenderRef: R },
    ],
    [
      'a failing object past its deadline from the stored anchor: Degraded, the anchor kept',
      deploymentEntry('web', { renderRef: R, firstUnhealthy: ANCHOR }),
      { kind: 'found', object: notReady },
      5 * 60_000,
      { state: 'Degraded', firstUnhealthy: ANCHOR, assessedRenderRef: R },
    ],
    [
      'a missing object: not found, as a failure',
      deploymentEntry('web', { renderRef: R, firstUnhealthy: ANCHOR }),
      { kind: 'absent' },
      undefined,
      { state: 'Progressing', message: 'not found', firstUnhealthy: ANCHOR, assessedRenderRef: R },
    ],
    [
      'a read error: Unknown, the anchor kept',
      deploymentEntry('web', { renderRef: R, firstUnhealthy: ANCHOR }),
      { kind: 'error', message: 'forbidden' },
      undefined,
      { state: 'Unknown', message: 'forbidden', firstUnhealthy: ANCHOR, assessedRenderRef: R },
    ],
  ];
  for (const [name, entry, read, deadlineMs, want] of rows)
    it(name, () => {
      const got = assessItem(entry, read, evaluator, deadlineMs, NOW);
      for (const [field, value] of Object.entries(want))
        assert.deepEqual(got[field as keyof InventoryEntry], value, field);
      assert.equal(got.name, entry.name, 'the keys are the entry’s');
    });
});

const merged = (entries?: InventoryEntry[]): MergedInventory => {
  const inventory: ReleaseInventory = {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'ReleaseInventory',
    metadata: { name: 'web', namespace: 'ns' },
    ...(entries === undefined ? {} : { entries }),
  };
  return { inventory, parts: new Map(), objects: new Map([[0, inventory]]) };
};

it('priorAndAnchors: the entries as stored, state and firstUnhealthy included', () => {
  const entries = [deploymentEntry('a', { state: 'Progressing', firstUnhealthy: ANCHOR })];
  assert.deepEqual(priorAndAnchors(merged(entries)), entries);
  assert.deepEqual(priorAndAnchors(merged()), []);
});
