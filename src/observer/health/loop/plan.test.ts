// Table tests of the pure parts of a health pass.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InventoryEntry, Release, ReleaseStatus } from '../../../api/types.ts';
import type { HealthyCondition } from '../condition.ts';
import { deploymentEntry } from '../fixtures.ts';
import {
  healthStatusBody,
  healthStatusUpToDate,
  holdPending,
  inventoryHealthChanged,
  inventoryHealthItems,
  pendingTargets,
} from './plan.ts';

const e = (name: string, extra: Partial<InventoryEntry> = {}): InventoryEntry =>
  deploymentEntry(name, { renderRef: 'sha256:a', ...extra });

describe('inventoryHealthItems', () => {
  it('sends only entries with a renderRef, with assessedRenderRef = renderRef', () => {
    const items = inventoryHealthItems([
      e('a', { state: 'Healthy', message: '' }),
      e('b', { renderRef: undefined, state: 'Healthy' }),
      e('c', { state: 'Progressing', message: 'not found', firstUnhealthy: '2030-01-01T00:00:00Z' }),
    ]);
    assert.deepEqual(items, [
      {
        group: 'apps',
        kind: 'Deployment',
        namespace: 'ns',
        name: 'a',
        state: 'Healthy',
        message: '',
        assessedRenderRef: 'sha256:a',
      },
      {
        group: 'apps',
        kind: 'Deployment',
        namespace: 'ns',
        name: 'c',
        state: 'Progressing',
        message: 'not found',
        firstUnhealthy: '2030-01-01T00:00:00Z',
        assessedRenderRef: 'sha256:a',
      },
    ]);
  });
  it('cluster-scoped entries keep namespace ""', () => {
    const [it0] = inventoryHealthItems([e('a', { namespace: '', state: 'Healthy' })]);
    assert.equal(it0?.namespace, '');
  });
});

describe('inventoryHealthChanged', () => {
  const api = (name: string, extra: Partial<InventoryEntry> = {}): InventoryEntry => ({
    group: 'apps',
    kind: 'Deployment',
    namespace: 'ns',
    name,
    renderRef: 'sha256:a',
    ...extra,
  });
  const items = inventoryHealthItems([e('a', { state: 'Healthy', message: '' })]);
  const rows: [string, InventoryEntry[], boolean][] = [
    ['same values', [api('a', { state: 'Healthy', message: '', assessedRenderRef: 'sha256:a' })], false],
    ['absent message equals ""', [api('a', { state: 'Healthy', assessedRenderRef: 'sha256:a' })], false],
    ['state differs', [api('a', { state: 'Progressing', assessedRenderRef: 'sha256:a' })], true],
    ['not assessed for this render', [api('a', { state: 'Healthy', assessedRenderRef: 'sha256:old' })], true],
    [
      'anchor to clear',
      [api('a', { state: 'Healthy', assessedRenderRef: 'sha256:a', firstUnhealthy: '2030-01-01T00:00:00Z' })],
      true,
    ],
    ['entry gone from the cache', [], true],
  ];
  for (const [name, cached, want] of rows)
    it(name, () => assert.equal(inventoryHealthChanged(cached, items), want));
});

describe('healthStatusBody / healthStatusUpToDate', () => {
  const summary = { healthy: 1, progressing: 0, degraded: 0, unknown: 0, total: 1 };
  const cond: HealthyCondition = { status: 'True', reason: 'Healthy', message: '1 objects healthy', summary };
  it('a new condition gets now as lastTransitionTime', () => {
    const b = healthStatusBody(cond, undefined, 3, 'T1');
    assert.equal(b.conditions[0]?.lastTransitionTime, 'T1');
    assert.equal(b.conditions[0]?.observedGeneration, 3);
    assert.equal(healthStatusUpToDate(undefined, b), false);
  });
  it('the same status keeps lastTransitionTime; unchanged values are up to date', () => {
    const prior: ReleaseStatus = {
      conditions: [...healthStatusBody(cond, undefined, 3, 'T1').conditions],
      healthSummary: summary,
    };
    const b = healthStatusBody({ ...cond }, prior, 3, 'T2');
    assert.equal(b.conditions[0]?.lastTransitionTime, 'T1');
    assert.equal(healthStatusUpToDate(prior, b), true);
    const moved = healthStatusBody({ ...cond, message: 'other' }, prior, 3, 'T2');
    assert.equal(moved.conditions[0]?.lastTransitionTime, 'T1');
    assert.equal(healthStatusUpToDate(prior, moved), false);
  });
  it('a status change moves lastTransitionTime', () => {
    const prior: ReleaseStatus = {
      conditions: [...healthStatusBody(cond, undefined, 3, 'T1').conditions],
      healthSummary: summary,
    };
    const b = healthStatusBody({ ...cond, status: 'Unknown', reason: 'Progressing' }, prior, 3, 'T2');
    assert.equal(b.conditions[0]?.lastTransitionTime, 'T2');
  });
  it('a summary change is a change', () => {
    const prior: ReleaseStatus = {
      conditions: [...healthStatusBody(cond, undefined, 3, 'T1').conditions],
      healthSummary: summary,
    };
    const b = healthStatusBody({ ...cond, summary: { ...summary, total: 2, healthy: 2 } }, prior, 3, 'T2');
    assert.equal(healthStatusUpToDate(prior, b), false);
  });
});

describe('pendingTargets', () => {
  it('objects not Healthy, Running hooks, render-pending while Pending, a failed assessment', () => {
    assert.deepEqual(
      pendingTargets({
        assessed: [e('a', { state: 'Healthy' }), e('b', { state: 'Degraded' }), e('c', { state: 'Unknown' })],
        runningHooks: ['pre'],
        conditionReason: 'Pending',
        assessFailed: false,
      }),
      ['object:apps/Deployment/ns/b', 'object:apps/Deployment/ns/c', 'hook:pre', 'render-pending'],
    );
    assert.deepEqual(
      pendingTargets({ assessed: [], runningHooks: [], conditionReason: 'Unknown', assessFailed: true }),
      ['assess'],
    );
    assert.deepEqual(
      pendingTargets({
        assessed: [e('a', { state: 'Healthy' })],
        runningHooks: [],
        conditionReason: 'Healthy',
        assessFailed: false,
      }),
      [],
    );
  });
});

describe('holdPending', () => {
  const cond = (reason: HealthyCondition['reason']): HealthyCondition => ({
    status: 'Unknown',
    reason,
    message: '',
    summary: { healthy: 0, progressing: 0, degraded: 0, unknown: 0, total: 0 },
  });
  const release = (status?: ReleaseStatus): Release => ({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { name: 'r', namespace: 'ns', generation: 2 },
    spec: { source: { inline: { manifests: '' } } },
    ...(status === undefined ? {} : { status }),
  });
  const attempt = { renderRef: 'sha256:a', revision: 'r', time: '2030-01-01T00:00:00Z', applied: true };
  const healthy = {
    type: 'Healthy',
    status: 'Unknown' as const,
    reason: 'Pending',
    message: '',
    lastTransitionTime: 'T',
  };
  const rows: [string, Release, HealthyCondition['reason'], boolean, boolean][] = [
    ['a new Release the controller has not reported on', release(), 'Pending', false, true],
    [
      'the controller reported on an older generation',
      release({ observedGeneration: 1 }),
      'Pending',
      false,
      true,
    ],
    [
      'the controller reported on this generation without an attempt',
      release({ observedGeneration: 2 }),
      'Pending',
      false,
      false,
    ],
    ['an attempt exists', release({ lastAttempted: attempt }), 'Pending', false, false],
    [
      'an attempt exists and its record is in flight',
      release({ observedGeneration: 2, lastAttempted: attempt }),
      'Pending',
      true,
      true,
    ],
    ['a Healthy condition was written before', release({ conditions: [healthy] }), 'Pending', false, false],
    [
      'a Healthy condition was written before and a record is in flight',
      release({ conditions: [healthy] }),
      'Pending',
      true,
      true,
    ],
    ['not Pending', release(), 'Progressing', false, false],
    ['not Pending, a record in flight', release({ lastAttempted: attempt }), 'Progressing', true, false],
  ];
  for (const [name, r, reason, inFlight, want] of rows)
    it(name, () => assert.equal(holdPending(r, cond(reason), inFlight), want));
});
