// Table test of stuckPods: which Pods of a StatefulSet a rollback deletes, and that it never picks a Ready
// Pod, a Pod of the update revision, another owner's Pod or one already going.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type LivePod, type LiveStatefulSet, type StuckPodsDecision, stuckPods } from './stuck-pods.ts';

const sts = (over: { generation?: number; observed?: number; update?: string; uid?: string } = {}) =>
  ({
    metadata: { uid: over.uid ?? 'sts-uid', generation: over.generation ?? 3 },
    status: {
      observedGeneration: over.observed ?? 3,
      ...(over.update === '' ? {} : { updateRevision: over.update ?? 'db-good' }),
    },
  }) satisfies LiveStatefulSet;

const pod = (
  name: string,
  revision: string | undefined,
  ready: boolean,
  over: { owner?: string; controller?: boolean; deleting?: boolean } = {},
): LivePod => ({
  metadata: {
    name,
    uid: `${name}-uid`,
    labels: revision === undefined ? { app: 'db' } : { app: 'db', 'controller-revision-hash': revision },
    ...(over.deleting === true ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    ownerReferences: [{ uid: over.owner ?? 'sts-uid', controller: over.controller ?? true }],
  },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

const del = (names: string[], deferred = 0): StuckPodsDecision => ({
  kind: 'delete',
  updateRevision: 'db-good',
  pods: names.map((n) => ({ name: n, uid: `${n}-uid`, revision: 'db-bad' })),
  deferred,
});

describe('stuckPods', () => {
  const rows: [string, LiveStatefulSet, LivePod[], number, StuckPodsDecision][] = [
    [
      'the stuck Pod of the bad revision',
      sts(),
      [pod('db-0', 'db-good', true), pod('db-1', 'db-bad', false)],
      5,
      del(['db-1']),
    ],
    ['a Ready Pod of the bad revision stays', sts(), [pod('db-1', 'db-bad', true)], 5, del([])],
    ['a not-Ready Pod of the update revision stays', sts(), [pod('db-1', 'db-good', false)], 5, del([])],
    [
      'a Pod without conditions is not Ready',
      sts(),
      [{ ...pod('db-1', 'db-bad', false), status: {} }],
      5,
      del(['db-1']),
    ],
    ['another owner’s Pod stays', sts(), [pod('db-1', 'db-bad', false, { owner: 'other' })], 5, del([])],
    [
      'an owner that is not the controller does not count',
      sts(),
      [pod('db-1', 'db-bad', false, { controller: false })],
      5,
      del([]),
    ],
    ['a Pod without the revision label stays', sts(), [pod('db-1', undefined, false)], 5, del([])],
    [
      'a Pod already being deleted is not deleted again',
      sts(),
      [pod('db-1', 'db-bad', false, { deleting: true })],
      5,
      del([]),
    ],
    [
      'at most the budget, by name; the rest deferred',
      sts(),
      [pod('db-2', 'db-bad', false), pod('db-0', 'db-bad', false), pod('db-1', 'db-bad', false)],
      2,
      del(['db-0', 'db-1'], 1),
    ],
    ['a budget of 0 deletes nothing', sts(), [pod('db-1', 'db-bad', false)], 0, del([], 1)],
    [
      'status older than the spec: wait, the update revision may be the bad one',
      sts({ generation: 4, observed: 3, update: 'db-bad' }),
      [pod('db-1', 'db-bad', false)],
      5,
      { kind: 'notObserved', generation: 4, observedGeneration: 3 },
    ],
    [
      'no update revision yet',
      sts({ update: '' }),
      [pod('db-1', 'db-bad', false)],
      5,
      { kind: 'noRevision' },
    ],
    ['no uid', sts({ uid: '' }), [pod('db-1', 'db-bad', false)], 5, { kind: 'noRevision' }],
  ];
  for (const [name, s, pods, budget, want] of rows)
    it(name, () => assert.deepEqual(stuckPods(s, pods, budget), want));
});
