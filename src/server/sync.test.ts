import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Release } from '../api/types.ts';
import { nextStamp, planSync } from './sync.ts';

const SRA = 'convoy.kumodo.io/sync-requested-at';
const AR = 'convoy.kumodo.io/approved-render';
const FSA = 'convoy.kumodo.io/force-sync-at';
const R1 = `sha256:${'1'.repeat(64)}`;
const R2 = `sha256:${'2'.repeat(64)}`;
const now = new Date('2030-01-01T00:00:10.000Z');

function release(opts: {
  mode?: 'Auto' | 'Manual';
  current?: string;
  annotations?: Record<string, string>;
}): Release {
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: {
      namespace: 'ns',
      name: 'web',
      ...(opts.annotations ? { annotations: opts.annotations } : {}),
    },
    spec: {
      source: { inline: { manifests: 'x' } },
      ...(opts.mode ? { syncPolicy: { mode: opts.mode } } : {}),
    },
    ...(opts.current ? { status: { currentRender: { renderRef: opts.current, revision: 'r' } } } : {}),
  };
}

test('nextStamp: now, unless that would not move past the previous value', () => {
  assert.equal(nextStamp(now, undefined), '2030-01-01T00:00:10.000Z');
  assert.equal(nextStamp(now, 'garbage'), '2030-01-01T00:00:10.000Z');
  assert.equal(nextStamp(now, '2030-01-01T00:00:09Z'), '2030-01-01T00:00:10.000Z');
  assert.equal(nextStamp(now, '2030-01-01T00:00:10.000Z'), '2030-01-01T00:00:10.001Z');
  // another replica's clock ran ahead
  assert.equal(nextStamp(now, '2030-01-01T00:05:00Z'), '2030-01-01T00:05:00.001Z');
});

const cases: {
  name: string;
  rel: Release;
  req: { force: boolean; approve: boolean };
  annotations?: Record<string, string>;
  set?: Record<string, string>;
  error?: RegExp;
}[] = [
  {
    name: 'plain sync sets only sync-requested-at',
    rel: release({}),
    req: { force: false, approve: false },
    annotations: { [SRA]: '2030-01-01T00:00:10.000Z' },
    set: { syncRequestedAt: '2030-01-01T00:00:10.000Z' },
  },
  {
    name: 'plain sync carries a pending approval and forced sync over (an apply leaving them out would delete them)',
    rel: release({
      annotations: { [AR]: R1, [FSA]: '2030-01-01T00:00:01Z', [SRA]: 'x', other: 'kept by its owner' },
    }),
    req: { force: false, approve: false },
    annotations: { [SRA]: '2030-01-01T00:00:10.000Z', [AR]: R1, [FSA]: '2030-01-01T00:00:01Z' },
    set: { syncRequestedAt: '2030-01-01T00:00:10.000Z' },
  },
  {
    name: 'force sets force-sync-at',
    rel: release({}),
    req: { force: true, approve: false },
    annotations: { [SRA]: '2030-01-01T00:00:10.000Z', [FSA]: '2030-01-01T00:00:10.000Z' },
    set: { syncRequestedAt: '2030-01-01T00:00:10.000Z', forceSyncAt: '2030-01-01T00:00:10.000Z' },
  },
  {
    name: 'a second force in the same millisecond still changes force-sync-at',
    rel: release({ annotations: { [FSA]: '2030-01-01T00:00:10.000Z', [SRA]: '2030-01-01T00:00:10.000Z' } }),
    req: { force: true, approve: false },
    annotations: { [SRA]: '2030-01-01T00:00:10.001Z', [FSA]: '2030-01-01T00:00:10.001Z' },
    set: { syncRequestedAt: '2030-01-01T00:00:10.001Z', forceSyncAt: '2030-01-01T00:00:10.001Z' },
  },
  {
    name: 'approve in Manual mode sets approved-render to the current render, replacing an older approval',
    rel: release({ mode: 'Manual', current: R2, annotations: { [AR]: R1 } }),
    req: { force: false, approve: true },
    annotations: { [SRA]: '2030-01-01T00:00:10.000Z', [AR]: R2 },
    set: { syncRequestedAt: '2030-01-01T00:00:10.000Z', approvedRender: R2 },
  },
  {
    name: 'approve and force together',
    rel: release({ mode: 'Manual', current: R1 }),
    req: { force: true, approve: true },
    annotations: { [SRA]: '2030-01-01T00:00:10.000Z', [AR]: R1, [FSA]: '2030-01-01T00:00:10.000Z' },
    set: {
      syncRequestedAt: '2030-01-01T00:00:10.000Z',
      approvedRender: R1,
      forceSyncAt: '2030-01-01T00:00:10.000Z',
    },
  },
  {
    name: 'approve in Auto mode (explicit) is a conflict',
    rel: release({ mode: 'Auto', current: R1 }),
    req: { force: false, approve: true },
    error: /is in Auto mode; approval applies only to syncPolicy.mode Manual/,
  },
  {
    name: 'approve with no syncPolicy (Auto by default) is a conflict, even with force',
    rel: release({ current: R1 }),
    req: { force: true, approve: true },
    error: /ns\/web is in Auto mode.*nothing was written/,
  },
  {
    name: 'approve before the controller rendered anything is a conflict',
    rel: release({ mode: 'Manual' }),
    req: { force: false, approve: true },
    error: /has no current render yet \(status.currentRender is unset/,
  },
];

for (const c of cases) {
  test(`planSync: ${c.name}`, () => {
    const d = planSync(c.rel, c.req, now);
    if (c.error !== undefined) {
      assert.equal(d.ok, false);
      if (!d.ok) {
        assert.equal(d.error.code, 409);
        assert.match(d.error.message, c.error);
      }
      return;
    }
    assert.equal(d.ok, true);
    if (!d.ok) return;
    assert.deepEqual(d.plan.annotations, c.annotations);
    assert.deepEqual(d.plan.set, c.set);
  });
}
