import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRequester, type Requester, requesterValue } from '../api/requester.ts';
import type { Release } from '../api/types.ts';
import { describeRequester, nextStamp, planSync, syncEvent } from './sync.ts';

const SRA = 'convoy.kumodo.io/sync-requested-at';
const AR = 'convoy.kumodo.io/approved-render';
const FSA = 'convoy.kumodo.io/force-sync-at';
const SRB = 'convoy.kumodo.io/sync-requested-by';
const ARB = 'convoy.kumodo.io/approved-by';
const FSB = 'convoy.kumodo.io/force-sync-by';
const ALICE: Requester = { kind: 'user', username: 'alice' };
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
  /** Default ALICE; null: no requester known (convoy sync --direct). */
  by?: Requester | null;
  annotations?: Record<string, string>;
  set?: Record<string, string>;
  error?: RegExp;
}[] = [
  {
    name: 'plain sync sets only sync-requested-at, and who asked',
    rel: release({}),
    req: { force: false, approve: false },
    annotations: { [SRA]: '2030-01-01T00:00:10.000Z', [SRB]: 'user:alice' },
    set: { syncRequestedAt: '2030-01-01T00:00:10.000Z' },
  },
  {
    name: 'plain sync carries a pending approval and forced sync over (an apply leaving them out would delete them)',
    rel: release({
      annotations: {
        [AR]: R1,
        [ARB]: 'user:carol',
        [FSA]: '2030-01-01T00:00:01Z',
        [FSB]: 'user:bob',
        [SRA]: 'x',
        [SRB]: 'user:bob',
        other: 'kept by its owner',
      },
    }),
    req: { force: false, approve: false },
    annotations: {
      [SRA]: '2030-01-01T00:00:10.000Z',
      [SRB]: 'user:alice',
      [AR]: R1,
      [ARB]: 'user:carol',
      [FSA]: '2030-01-01T00:00:01Z',
      [FSB]: 'user:bob',
    },
    set: { syncRequestedAt: '2030-01-01T00:00:10.000Z' },
  },
  {
    name: 'force sets force-sync-at and force-sync-by',
    rel: release({}),
    req: { force: true, approve: false },
    annotations: {
      [SRA]: '2030-01-01T00:00:10.000Z',
      [SRB]: 'user:alice',
      [FSA]: '2030-01-01T00:00:10.000Z',
      [FSB]: 'user:alice',
    },
    set: { syncRequestedAt: '2030-01-01T00:00:10.000Z', forceSyncAt: '2030-01-01T00:00:10.000Z' },
  },
  {
    name: 'a second force in the same millisecond still changes force-sync-at',
    rel: release({ annotations: { [FSA]: '2030-01-01T00:00:10.000Z', [SRA]: '2030-01-01T00:00:10.000Z' } }),
    req: { force: true, approve: false },
    annotations: {
      [SRA]: '2030-01-01T00:00:10.001Z',
      [SRB]: 'user:alice',
      [FSA]: '2030-01-01T00:00:10.001Z',
      [FSB]: 'user:alice',
    },
    set: { syncRequestedAt: '2030-01-01T00:00:10.001Z', forceSyncAt: '2030-01-01T00:00:10.001Z' },
  },
  {
    name: 'approve in Manual mode sets approved-render to the current render, replacing an older approval',
    rel: release({ mode: 'Manual', current: R2, annotations: { [AR]: R1, [ARB]: 'user:carol' } }),
    req: { force: false, approve: true },
    annotations: { [SRA]: '2030-01-01T00:00:10.000Z', [SRB]: 'user:alice', [AR]: R2, [ARB]: 'user:alice' },
    set: { syncRequestedAt: '2030-01-01T00:00:10.000Z', approvedRender: R2 },
  },
  {
    name: 'approve and force together',
    rel: release({ mode: 'Manual', current: R1 }),
    req: { force: true, approve: true },
    by: { kind: 'user', username: 'system:serviceaccount:ci:deployer' },
    annotations: {
      [SRA]: '2030-01-01T00:00:10.000Z',
      [SRB]: 'user:system:serviceaccount:ci:deployer',
      [AR]: R1,
      [ARB]: 'user:system:serviceaccount:ci:deployer',
      [FSA]: '2030-01-01T00:00:10.000Z',
      [FSB]: 'user:system:serviceaccount:ci:deployer',
    },
    set: {
      syncRequestedAt: '2030-01-01T00:00:10.000Z',
      approvedRender: R1,
      forceSyncAt: '2030-01-01T00:00:10.000Z',
    },
  },
  {
    name: 'a push names its Receiver, not a user',
    rel: release({}),
    req: { force: false, approve: false },
    by: { kind: 'receiver', namespace: 'ns', name: 'github', branch: 'main' },
    annotations: { [SRA]: '2030-01-01T00:00:10.000Z', [SRB]: 'receiver:ns/github' },
    set: { syncRequestedAt: '2030-01-01T00:00:10.000Z' },
  },
  {
    name: 'no requester known (--direct): the stale requester of what it sets is removed, the others kept',
    rel: release({
      annotations: { [SRA]: 'x', [SRB]: 'user:bob', [FSA]: '2030-01-01T00:00:01Z', [FSB]: 'user:bob' },
    }),
    req: { force: false, approve: false },
    by: null,
    annotations: { [SRA]: '2030-01-01T00:00:10.000Z', [FSA]: '2030-01-01T00:00:01Z', [FSB]: 'user:bob' },
    set: { syncRequestedAt: '2030-01-01T00:00:10.000Z' },
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
    const d = planSync(c.rel, c.req, now, c.by === null ? undefined : (c.by ?? ALICE));
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

test('requesterValue and parseRequester round-trip; a value convoy did not write is no requester', () => {
  const rows: [Requester, string][] = [
    [ALICE, 'user:alice'],
    [
      { kind: 'user', username: 'system:serviceaccount:ci:deployer' },
      'user:system:serviceaccount:ci:deployer',
    ],
    [{ kind: 'receiver', namespace: 'shop', name: 'github' }, 'receiver:shop/github'],
  ];
  for (const [by, value] of rows) {
    assert.equal(requesterValue(by), value);
    assert.deepEqual(parseRequester(value), by);
  }
  for (const bad of [undefined, '', 'alice', 'user:', 'receiver:shop', 'receiver:/x', 'group:ops']) {
    assert.equal(parseRequester(bad), undefined, String(bad));
  }
});

test('syncEvent: the reason says what was asked, the message who asked', () => {
  const at = '2030-01-01T00:00:10.000Z';
  const rows: [string, Parameters<typeof syncEvent>[0], Requester, { reason: string; message: string }][] = [
    [
      'plain',
      { syncRequestedAt: at },
      ALICE,
      { reason: 'SyncRequested', message: 'sync requested by alice' },
    ],
    [
      'forced',
      { syncRequestedAt: at, forceSyncAt: at },
      ALICE,
      { reason: 'ForcedSyncRequested', message: 'forced sync requested by alice' },
    ],
    [
      'approved',
      { syncRequestedAt: at, approvedRender: R1 },
      ALICE,
      { reason: 'RenderApproved', message: `render ${R1} approved and sync requested by alice` },
    ],
    [
      'approved and forced',
      { syncRequestedAt: at, approvedRender: R1, forceSyncAt: at },
      ALICE,
      { reason: 'RenderApproved', message: `render ${R1} approved and forced sync requested by alice` },
    ],
    [
      'a push',
      { syncRequestedAt: at },
      { kind: 'receiver', namespace: 'shop', name: 'github', branch: 'main' },
      { reason: 'SyncRequested', message: 'sync requested by a push to main (Receiver shop/github)' },
    ],
  ];
  for (const [name, set, by, want] of rows) assert.deepEqual(syncEvent(set, by), want, name);
  assert.equal(describeRequester({ kind: 'receiver', namespace: 'a', name: 'b' }), 'a push (Receiver a/b)');
});

test('approve on a rollout held by an inconclusive verification accepts its render, in any mode', () => {
  const held: Release = {
    ...release({ mode: 'Auto', current: R2 }),
    spec: {
      source: { inline: { manifests: 'x' } },
      failurePolicy: { deadline: '5m' },
      verification: { soak: '5m', checks: [] },
    },
    status: {
      currentRender: { renderRef: R2, revision: 'r' },
      rollout: { state: 'Progressing', renderRef: R2, revision: 'r', reason: 'NewRender', message: 'm' },
      conditions: [
        {
          type: 'Verified',
          status: 'False',
          reason: 'VerificationInconclusive',
          message: 'prometheus unreachable',
          lastTransitionTime: '2030-01-01T00:00:00Z',
        },
      ],
    },
  };
  const d = planSync(held, { force: false, approve: true }, now, ALICE);
  assert.ok(d.ok);
  assert.equal(d.plan.annotations['convoy.kumodo.io/accepted-render'], R2);
  assert.equal(d.plan.annotations['convoy.kumodo.io/accepted-by'], 'user:alice');
  assert.equal(d.plan.annotations[AR], undefined, 'no manual-mode approval is written');
  assert.equal(syncEvent(d.plan.set, ALICE).reason, 'RenderAccepted');

  // still measuring: not held, and in Auto mode approve is refused as before
  const inconclusive = held.status?.conditions?.[0];
  assert.ok(inconclusive);
  const verifying: Release = {
    ...held,
    status: { ...held.status, conditions: [{ ...inconclusive, reason: 'Verifying', status: 'Unknown' }] },
  };
  assert.equal(planSync(verifying, { force: false, approve: true }, now, ALICE).ok, false);
});
