import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InventoryEntry, Release, ReleaseInventory } from '../../api/types.ts';
import { inventoryUpdateMatters, releaseUpdateMatters } from './filters.ts';

const R = (over: {
  generation?: number;
  deleting?: boolean;
  attempt?: object;
  annotations?: object;
  cond?: string;
}): Release =>
  ({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: {
      name: 'a',
      namespace: 'n',
      generation: over.generation ?? 1,
      ...(over.deleting ? { deletionTimestamp: '2025-01-01T00:00:00Z' } : {}),
      annotations: { ...over.annotations },
    },
    spec: { source: { inline: { manifests: '' } } },
    status: {
      lastAttempted: { renderRef: 'sha256:a', time: '2025-01-01T00:00:00Z', applied: true, ...over.attempt },
      conditions: over.cond
        ? [{ type: 'Drifted', status: over.cond, reason: 'x', message: '', lastTransitionTime: '' }]
        : [],
    },
  }) as unknown as Release;

test('releaseUpdateMatters: spec, deletion and a new attempt; not annotations or the observer’s own status', () => {
  const base = R({});
  const cases: [string, Release, boolean][] = [
    ['generation', R({ generation: 2 }), true],
    ['deletion started', R({ deleting: true }), true],
    ['a new attempt (re-apply)', R({ attempt: { time: '2025-01-01T00:01:00Z' } }), true],
    ['a new render attempted', R({ attempt: { renderRef: 'sha256:b' } }), true],
    ['sync-requested-at only', R({ annotations: { 'convoy.kumodo.io/sync-requested-at': 'now' } }), false],
    ['the Drifted condition written', R({ cond: 'True' }), false],
  ];
  for (const [name, n, want] of cases) assert.equal(releaseUpdateMatters(base, n), want, name);
});

const e = (name: string, over: Partial<InventoryEntry> = {}): InventoryEntry => ({
  group: '',
  kind: 'ConfigMap',
  namespace: 'n',
  name,
  renderRef: 'sha256:a',
  ...over,
});
const inv = (entries: InventoryEntry[]) =>
  ({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'ReleaseInventory',
    metadata: { name: 'a' },
    entries,
  }) as ReleaseInventory;

test('inventoryUpdateMatters: keys and renderRefs only, so the loop’s own writes never wake it', () => {
  const base = inv([e('a'), e('b')]);
  const cases: [string, ReleaseInventory, boolean][] = [
    ['entry added', inv([e('a'), e('b'), e('c')]), true],
    ['entry removed', inv([e('a')]), true],
    ['renderRef changed', inv([e('a', { renderRef: 'sha256:b' }), e('b')]), true],
    ['order only', inv([e('b'), e('a')]), false],
    ['drift fields', inv([e('a', { drifted: true, driftMessage: 'x' }), e('b')]), false],
    ['health fields', inv([e('a', { state: 'Healthy' }), e('b')]), false],
  ];
  for (const [name, n, want] of cases) assert.equal(inventoryUpdateMatters(base, n), want, name);
});
