// Table tests of attemptTrigger (what made the controller attempt a render), of the requests it reads
// from the annotations, and of the bound on what it records of who asked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AttemptTrigger } from '../../../api/types.ts';
import { approvalOf, attemptTrigger, recordedBy, requestedSync, type TriggerInput } from './trigger.ts';

const base: TriggerInput = {
  pinned: false,
  previousRevision: 'a',
  revision: 'a',
  generation: 2,
  observedGeneration: 2,
};
const alice = { by: 'user:alice' };

test('attemptTrigger: the first match wins, from the rollback down to the resync', () => {
  const rows: [string, Partial<TriggerInput>, AttemptTrigger][] = [
    ['the first render', { previousRevision: undefined, revision: 'a' }, { kind: 'Created' }],
    ['a new revision', { revision: 'b' }, { kind: 'Source' }],
    ['a new revision with a spec change', { revision: 'b', generation: 3 }, { kind: 'Source' }],
    ['the same revision, a spec change', { generation: 3 }, { kind: 'Spec', generation: 3 }],
    ['nothing changed: the interval or a retry', {}, { kind: 'Resync' }],
    ['a sync request', { requested: alice, revision: 'b' }, { kind: 'SyncRequest', by: 'user:alice' }],
    [
      'a push',
      { requested: { by: 'receiver:shop/github' } },
      { kind: 'SyncRequest', by: 'receiver:shop/github' },
    ],
    ['a request without a requester (sync --direct)', { requested: {} }, { kind: 'SyncRequest' }],
    [
      'an approval over its sync request',
      { approved: alice, requested: alice },
      { kind: 'Approval', by: 'user:alice' },
    ],
    [
      'a forced sync over an approval',
      { forced: { by: 'user:bob' }, approved: alice },
      { kind: 'ForcedSync', by: 'user:bob' },
    ],
    ['a pin over a forced sync', { pinned: true, forced: alice }, { kind: 'Pin' }],
    [
      'the rollback over everything',
      { rollback: { reason: 'DeadlineExceeded' }, pinned: true },
      { kind: 'Rollback', reason: 'DeadlineExceeded' },
    ],
    ['a rollback without a reason', { rollback: {} }, { kind: 'Rollback' }],
    [
      'a hand-written requester is not recorded',
      { requested: { by: 'mallory was here' } },
      { kind: 'SyncRequest' },
    ],
  ];
  for (const [name, over, want] of rows) assert.deepEqual(attemptTrigger({ ...base, ...over }), want, name);
});

test('what is recorded of who asked and why is bounded', () => {
  const long = `user:${'a'.repeat(5000)}`;
  assert.equal(recordedBy(long)?.length, 256);
  assert.equal(recordedBy('user:'), undefined);
  const reason = attemptTrigger({ ...base, rollback: { reason: 'R'.repeat(5000) } }).reason;
  assert.equal(reason?.length, 256);
});

test("requestedSync: a person's or a push's request not seen yet; never the observer's wake-up", () => {
  const at = 'convoy.kumodo.io/sync-requested-at';
  const by = 'convoy.kumodo.io/sync-requested-by';
  const T = '2025-01-01T00:00:00.000Z';
  const rows: [string, Record<string, string> | undefined, string | undefined, string | undefined][] = [
    ['no annotation', undefined, undefined, undefined],
    ['a new request', { [at]: T, [by]: 'user:alice' }, undefined, 'user:alice'],
    ['a request already seen', { [at]: T, [by]: 'user:alice' }, T, undefined],
    [
      'the observer',
      { [at]: T, [by]: 'user:system:serviceaccount:convoy:convoy-observer' },
      undefined,
      undefined,
    ],
  ];
  for (const [name, annotations, seen, want] of rows) {
    assert.equal(requestedSync(annotations, seen)?.by, want, name);
  }
  assert.equal(requestedSync({ [at]: T }, undefined)?.at, T, 'a request without a requester');
});

test('approvalOf: only in the Manual mode, only for the render it names', () => {
  const a = { 'convoy.kumodo.io/approved-render': 'r1', 'convoy.kumodo.io/approved-by': 'user:alice' };
  assert.deepEqual(approvalOf(a, 'Manual', 'r1'), alice);
  assert.equal(approvalOf(a, 'Manual', 'r2'), undefined);
  assert.equal(approvalOf(a, 'Auto', 'r1'), undefined);
  assert.equal(approvalOf(a, undefined, 'r1'), undefined);
});
