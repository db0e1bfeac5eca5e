// deleteStuckPods' orchestration with an injected client that records calls: off by default (no request
// at all), one budget over all StatefulSets, the uid precondition on each delete, a failed read or delete
// as a note and not a throw. Which Pods are stuck is decide/stuck-pods.test.ts; the Kubernetes side is
// test/e2e/rollout-statefulset.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { Release } from '../../../api/types.ts';
import type { KubeClient } from '../../../kube/client.ts';
import type { Obj } from '../../../render/types.ts';
import { deleteStuckPods, STUCK_POD_BUDGET } from './stuck-pods.ts';

const sts = (name: string): Obj => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name, namespace: 'ns' },
});
const cm: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } };

const liveSts = (name: string) => ({
  metadata: { name, uid: `${name}-uid`, generation: 2 },
  spec: { selector: { matchLabels: { app: name } } },
  status: { observedGeneration: 2, updateRevision: `${name}-good` },
});
const stuckPod = (sts: string, i: number) => ({
  metadata: {
    name: `${sts}-${i}`,
    uid: `${sts}-${i}-uid`,
    labels: { app: sts, 'controller-revision-hash': `${sts}-bad` },
    ownerReferences: [{ uid: `${sts}-uid`, controller: true }],
  },
  status: { conditions: [{ type: 'Ready', status: 'False' }] },
});

type Call = { op: string; name: string; uid?: string; labelSelector?: string };

function fakeClient(pods: Record<string, number>, fail: { deleteOf?: string } = {}) {
  const calls: Call[] = [];
  const client = {
    async get(ref: { name: string }) {
      calls.push({ op: 'get', name: ref.name });
      return pods[ref.name] === undefined ? undefined : liveSts(ref.name);
    },
    async listAll(_ref: unknown, opts: { labelSelector?: string }) {
      const app = opts.labelSelector?.replace('app=', '') ?? '';
      calls.push({
        op: 'list',
        name: app,
        ...(opts.labelSelector === undefined ? {} : { labelSelector: opts.labelSelector }),
      });
      return Array.from({ length: pods[app] ?? 0 }, (_, i) => stuckPod(app, i));
    },
    async delete(ref: { name: string }, opts: { uid?: string }) {
      calls.push({ op: 'delete', name: ref.name, ...(opts.uid === undefined ? {} : { uid: opts.uid }) });
      if (ref.name === fail.deleteOf) throw new Error('pods "x" is forbidden');
      return true;
    },
  } as unknown as KubeClient;
  return { calls, target: { client, readClient: client } };
}

const release = (policy?: 'Keep' | 'Delete'): Release =>
  ({
    metadata: { name: 'app', namespace: 'ns' },
    spec: {
      source: { inline: { manifests: '' } },
      failurePolicy: { deadline: '1m', ...(policy === undefined ? {} : { stuckStatefulSetPods: policy }) },
    },
  }) as Release;

const deps = { log: pino({ level: 'silent' }), now: () => 0 };

describe('deleteStuckPods', () => {
  for (const policy of [undefined, 'Keep'] as const)
    it(`${policy ?? 'unset'}: no request at all`, async () => {
      const { calls, target } = fakeClient({ db: 1 });
      assert.deepEqual(await deleteStuckPods(release(policy), [sts('db')], target, deps), []);
      assert.deepEqual(calls, []);
    });

  it('Delete: each stuck Pod deleted with its uid as precondition, one note each', async () => {
    const { calls, target } = fakeClient({ db: 2 });
    const notes = await deleteStuckPods(release('Delete'), [cm, sts('db')], target, deps);
    assert.deepEqual(calls, [
      { op: 'get', name: 'db' },
      { op: 'list', name: 'db', labelSelector: 'app=db' },
      { op: 'delete', name: 'db-0', uid: 'db-0-uid' },
      { op: 'delete', name: 'db-1', uid: 'db-1-uid' },
    ]);
    assert.deepEqual(notes, [
      'deleted Pod ns/db-0 of StatefulSet ns/db: not Ready on revision db-bad, the update revision is db-good',
      'deleted Pod ns/db-1 of StatefulSet ns/db: not Ready on revision db-bad, the update revision is db-good',
    ]);
  });

  it('one budget over all StatefulSets of the render; the rest is said', async () => {
    const { calls, target } = fakeClient({ a: STUCK_POD_BUDGET - 1, b: 3 });
    const notes = await deleteStuckPods(release('Delete'), [sts('a'), sts('b')], target, deps);
    assert.equal(calls.filter((c) => c.op === 'delete').length, STUCK_POD_BUDGET);
    assert.equal(
      notes.at(-1),
      `StatefulSet ns/b: 2 more stuck Pods left for a later pass (at most ${STUCK_POD_BUDGET} a pass)`,
    );
  });

  it('status older than the spec: read again until the controller caught up, then give up with a note', async () => {
    let gets = 0;
    const client = {
      async get(ref: { name: string }) {
        gets++;
        return { ...liveSts(ref.name), status: { observedGeneration: 1, updateRevision: `${ref.name}-bad` } };
      },
      async listAll() {
        throw new Error('no list while the status is stale');
      },
    } as unknown as KubeClient;
    let t = 0;
    const clock = { ...deps, now: () => (t += 4_000) };
    const notes = await deleteStuckPods(
      release('Delete'),
      [sts('db')],
      { client, readClient: client },
      clock,
    );
    assert.ok(gets >= 2, `read again: ${gets}`);
    assert.deepEqual(notes, [
      'StatefulSet ns/db: stuck Pods not checked, the statefulset controller has not observed generation 2 yet',
    ]);
  });

  it('a StatefulSet that is gone is skipped; a failed delete is a note and the next one still runs', async () => {
    const { calls, target } = fakeClient({ b: 1, c: 1 }, { deleteOf: 'b-0' });
    const notes = await deleteStuckPods(release('Delete'), [sts('a'), sts('b'), sts('c')], target, deps);
    assert.deepEqual(
      calls.filter((c) => c.op === 'delete').map((c) => c.name),
      ['b-0', 'c-0'],
    );
    assert.deepEqual(notes, [
      'StatefulSet ns/b: stuck Pods not deleted: pods "x" is forbidden',
      'deleted Pod ns/c-0 of StatefulSet ns/c: not Ready on revision c-bad, the update revision is c-good',
    ]);
  });
});
