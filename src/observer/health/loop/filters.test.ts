// Table tests of the health loop's event filters (docs/design.md#health-events).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InventoryEntry, InventoryHook, Release, ReleaseInventory } from '../../../api/types.ts';
import { inventoryUpdateMatters, releaseUpdateMatters } from './filters.ts';

const release = (meta: Partial<Release['metadata']> = {}, status?: Release['status']): Release => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Release',
  metadata: { name: 'r', namespace: 'ns', generation: 1, resourceVersion: '1', ...meta },
  spec: { source: { inline: { manifests: '' } } },
  ...(status ? { status } : {}),
});

const attempt = (renderRef: string) => ({
  renderRef,
  revision: 'r1',
  time: '2030-01-01T00:00:00Z',
  applied: true,
});

describe('releaseUpdateMatters', () => {
  const base = release();
  const rows: [string, Release, boolean][] = [
    ['generation changed', release({ generation: 2, resourceVersion: '2' }), true],
    [
      'deletion timestamp set',
      release({ deletionTimestamp: '2030-01-01T00:00:00Z', resourceVersion: '2' }),
      true,
    ],
    [
      'annotation only (e.g. sync-requested-at)',
      release({ annotations: { a: 'b' }, resourceVersion: '2' }),
      false,
    ],
    [
      'status write',
      release(
        { resourceVersion: '2' },
        { healthSummary: { healthy: 1, progressing: 0, degraded: 0, unknown: 0, total: 1 } },
      ),
      false,
    ],
    ['labels only', release({ labels: { x: 'y' }, resourceVersion: '2' }), false],
    [
      "the controller's lastAttempted names a render",
      release({ resourceVersion: '2' }, { lastAttempted: attempt('sha256:a') }),
      true,
    ],
  ];
  for (const [name, n, want] of rows) it(name, () => assert.equal(releaseUpdateMatters(base, n), want));
  it("the controller's first report on a generation counts, the observer's own status write does not", () => {
    const reported = release({}, { observedGeneration: 1 });
    assert.equal(releaseUpdateMatters(base, reported), true);
    const summary = { healthy: 1, progressing: 0, degraded: 0, unknown: 0, total: 1 };
    assert.equal(
      releaseUpdateMatters(reported, release({}, { observedGeneration: 1, healthSummary: summary })),
      false,
    );
  });
  it('lastAttempted: another render counts, the same render attempted again does not', () => {
    const at = (ref: string, time: string) => release({}, { lastAttempted: { ...attempt(ref), time } });
    const a = at('sha256:a', '2030-01-01T00:00:00Z');
    assert.equal(releaseUpdateMatters(a, at('sha256:b', '2030-01-01T00:00:00Z')), true);
    assert.equal(releaseUpdateMatters(a, at('sha256:a', '2030-01-01T00:01:00Z')), false);
  });
  it('deletion timestamp already set: a further update does not count', () => {
    const d = release({ deletionTimestamp: '2030-01-01T00:00:00Z' });
    assert.equal(releaseUpdateMatters(d, { ...d, metadata: { ...d.metadata, finalizers: [] } }), false);
  });
});

const entry = (name: string, extra: Partial<InventoryEntry> = {}): InventoryEntry => ({
  group: 'apps',
  kind: 'Deployment',
  namespace: 'ns',
  name,
  version: 'v1',
  wave: 0,
  renderRef: 'sha256:a',
  ...extra,
});
const hook = (name: string, extra: Partial<InventoryHook> = {}): InventoryHook => ({
  name,
  workloadName: `${name}-1`,
  createdAt: '2030-01-01T00:00:00Z',
  ...extra,
});
const inv = (entries: InventoryEntry[], hooks: InventoryHook[] = []): ReleaseInventory => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'ReleaseInventory',
  metadata: { name: 'r', namespace: 'ns' },
  entries,
  hooks,
});

describe('inventoryUpdateMatters', () => {
  const base = inv([entry('a'), entry('b')], [hook('h')]);
  const rows: [string, ReleaseInventory, boolean][] = [
    ['entry added', inv([entry('a'), entry('b'), entry('c')], [hook('h')]), true],
    ['entry removed', inv([entry('a')], [hook('h')]), true],
    ['renderRef changed', inv([entry('a', { renderRef: 'sha256:b' }), entry('b')], [hook('h')]), true],
    ['hook added', inv([entry('a'), entry('b')], [hook('h'), hook('i')]), true],
    [
      'hook re-armed (createdAt)',
      inv([entry('a'), entry('b')], [hook('h', { createdAt: '2030-01-01T00:05:00Z' })]),
      true,
    ],
    ['hook workloadName changed', inv([entry('a'), entry('b')], [hook('h', { workloadName: 'h-2' })]), true],
    ['order only', inv([entry('b'), entry('a')], [hook('h')]), false],
    [
      'health fields written by the loop',
      inv(
        [
          entry('a', { state: 'Healthy', assessedRenderRef: 'sha256:a', message: '' }),
          entry('b', { state: 'Progressing', firstUnhealthy: '2030-01-01T00:00:00Z' }),
        ],
        [hook('h')],
      ),
      false,
    ],
    [
      'hook status written by the loop',
      inv([entry('a'), entry('b')], [hook('h', { state: 'Succeeded', finishedAt: '2030-01-01T00:01:00Z' })]),
      false,
    ],
    ['drift fields', inv([entry('a', { drifted: true, driftMessage: 'x' }), entry('b')], [hook('h')]), false],
    ['wave changed only', inv([entry('a', { wave: 3 }), entry('b')], [hook('h')]), false],
  ];
  for (const [name, n, want] of rows) it(name, () => assert.equal(inventoryUpdateMatters(base, n), want));
});
