// The figures watch, status, get and the API print come from progressSummary: the contradictions users
// saw (a wave "at" with none done, a Succeeded rollout with waves not done, 0/0 objects after a
// rollback, hooks counted against a total nobody knows, Synced for a render never applied) are rows here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configMapEntry, inventoryOf, R1, R2 } from '../api/testsupport.ts';
import type { InventoryEntry, Release, ReleaseInventory, ReleaseStatus } from '../api/types.ts';
import { progressSummary } from './progress.ts';

const T = '2030-01-01T00:00:00Z';

const release = (status: ReleaseStatus, spec: Partial<Release['spec']> = {}): Release => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Release',
  metadata: { name: 'web', namespace: 'ns', generation: 1 },
  spec: {
    source: { inline: { manifests: 'x' } },
    healthAssessment: {},
    failurePolicy: { deadline: '5m' },
    ...spec,
  },
  status: { observedGeneration: 1, ...status },
});

const entry = (name: string, wave: number, renderRef: string, healthyFor?: string): InventoryEntry =>
  configMapEntry(
    'ns',
    name,
    wave,
    renderRef,
    healthyFor === undefined ? {} : { state: 'Healthy', assessedRenderRef: healthyFor },
  );

const inventory = (entries: InventoryEntry[], hooks: ReleaseInventory['hooks'] = []): ReleaseInventory =>
  inventoryOf('ns', 'web', entries, hooks);

const cond = (type: string, status: 'True' | 'False' | 'Unknown', reason: string, message = '') => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: T,
});

test('a wave whose objects are all Healthy is done, even before completedAt is stamped', () => {
  const r = release({
    currentRender: { renderRef: R2, revision: 'b' },
    rollout: { state: 'Progressing', renderRef: R2, startedAt: T },
    waves: [
      { renderRef: R2, wave: 0, startedAt: T },
      { renderRef: R2, wave: 1, startedAt: T },
    ],
  });
  const p = progressSummary(r, inventory([entry('a', 0, R2, R2), entry('b', 1, R2)]));
  assert.deepEqual([p.waves.done, p.waves.total, p.waves.current], [1, 2, 1]);
  assert.deepEqual([p.objects.healthy, p.objects.total], [1, 2]);
});

test('a Succeeded rollout has every wave done and no current wave', () => {
  const r = release({
    currentRender: { renderRef: R2, revision: 'b' },
    rollout: { state: 'Succeeded', renderRef: R2, startedAt: T, finishedAt: T },
    waves: [
      { renderRef: R2, wave: 0, startedAt: T },
      { renderRef: R2, wave: 1, startedAt: T },
    ],
  });
  const p = progressSummary(r, inventory([entry('a', 0, R2), entry('b', 1, R2)]));
  assert.equal(p.state, 'Succeeded');
  assert.deepEqual([p.waves.done, p.waves.total, p.waves.current], [2, 2, undefined]);
});

test('after a rollback the objects counted are those of the render now applied', () => {
  const r = release({
    currentRender: { renderRef: R2, revision: 'b' },
    rollout: { state: 'RolledBack', renderRef: R2, reason: 'DeadlineExceeded', message: 'b Degraded' },
    lastHealthy: { renderRef: R1, revision: 'a', time: T },
  });
  const p = progressSummary(r, inventory([entry('a', 0, R1, R1), entry('b', 0, R1, R1)]));
  assert.equal(p.state, 'RolledBack');
  assert.deepEqual(p.objects, { healthy: 2, total: 2, renderRef: R1 });
  assert.equal(p.message, 'DeadlineExceeded: b Degraded');
});

test('hooks are counted by state for the followed render only', () => {
  const r = release({
    currentRender: { renderRef: R2, revision: 'b' },
    rollout: { state: 'Progressing', renderRef: R2, startedAt: T },
    conditions: [cond('Ready', 'Unknown', 'WaitingForHook', 'waiting for PostSync hooks')],
  });
  const p = progressSummary(
    r,
    inventory(
      [],
      [
        { name: 'migrate', phase: 'PreSync', renderRef: R2, state: 'Succeeded' },
        { name: 'smoke', phase: 'PostSync', renderRef: R2 },
        { name: 'old', phase: 'PreSync', renderRef: R1, state: 'Failed' },
      ],
    ),
  );
  assert.deepEqual([p.hooks.succeeded, p.hooks.running, p.hooks.failed], [1, 1, 0]);
  assert.equal(p.message, 'WaitingForHook: waiting for PostSync hooks');
});

/** A Release without failurePolicy whose render R1 was attempted (applied or not) with this Ready. */
const attempted = (applied: boolean, ready: ReturnType<typeof cond>): Release =>
  release(
    {
      currentRender: { renderRef: R1, revision: 'a' },
      lastAttempted: { renderRef: R1, revision: 'a', time: T, applied },
      conditions: [ready],
    },
    { failurePolicy: undefined },
  );

test('a render the controller does not know is Pending, never Synced', () => {
  const r = attempted(true, cond('Ready', 'True', 'Synced', 'applied'));
  const unknown = progressSummary(r, undefined, R2);
  assert.equal(unknown.known, false);
  assert.equal(unknown.state, 'Pending');
  assert.match(unknown.message, /waiting for the controller to render sha256:2222/);
  const current = progressSummary(r, undefined);
  assert.deepEqual([current.known, current.state], [true, 'Synced']);
});

test('a failing Ready shows its reason and message; a suspended Release says so', () => {
  const failing = attempted(
    false,
    cond('Ready', 'False', 'DryRunFailed', 'ConfigMap hello: a namespace is required'),
  );
  const p = progressSummary(failing, undefined);
  assert.deepEqual([p.state, p.message], ['DryRunFailed', 'ConfigMap hello: a namespace is required']);
  const suspended: Release = { ...failing, spec: { ...failing.spec, suspend: true } };
  assert.equal(progressSummary(suspended, undefined).state, 'Suspended');
});
