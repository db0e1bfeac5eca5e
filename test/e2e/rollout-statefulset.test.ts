// A StatefulSet rolled back (docs/rollouts.md#statefulsets-stuck-on-the-bad-revision), on the real
// StatefulSet controller with kwok's Pods: a commit whose Pod never becomes Ready is rolled back at its
// deadline, and with failurePolicy.stuckStatefulSetPods: Delete convoy deletes the Pod stuck on the bad
// revision so the StatefulSet controller recreates it from the healthy template and the StatefulSet is
// healthy again — which Kubernetes does not do by itself with podManagementPolicy OrderedReady.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEST_LABEL_NEVER_READY } from '../../src/testenv/index.ts';
import { events, gitRelease, inRolloutScenario, reached } from '../support/rollout.ts';
import { convoySystemPerFile } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const env = convoySystemPerFile({ identity: 'rollout-statefulset' });

/** A two-replica StatefulSet; `tag` changes its Pod template, `ready: false` keeps its Pods from being Ready. */
function statefulSet(tag: string, ready: boolean): Record<string, string> {
  const labels: Record<string, string> = {
    app: 'db',
    ...(ready ? {} : { [TEST_LABEL_NEVER_READY]: 'true' }),
  };
  return {
    'app/db.yaml': `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata:
      labels: ${JSON.stringify(labels)}
      annotations: {example.com/tag: "${tag}"}
    spec:
      containers: [{name: main, image: "registry.invalid/db:${tag}"}]
`,
  };
}

interface LivePod {
  metadata: {
    name: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  status?: { conditions?: { type: string; status: string }[] };
}

const ready = (p: LivePod) =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

test('a StatefulSet Pod stuck on the bad revision is deleted after the rollback, when opted in', () =>
  inRolloutScenario(env, 'ro-sts', 'sts', async ({ ns, repo, waitForRollout }) => {
    const { client } = env;
    const pods = () => client.list<LivePod>({ apiVersion: 'v1', kind: 'Pod', namespace: ns });
    const sha1 = await repo.commit(statefulSet('v1', true));
    await client.create(
      gitRelease(ns, 'app', repo, {
        failurePolicy: { deadline: '10s', rollback: 'OnFailure', stuckStatefulSetPods: 'Delete' },
      }),
    );
    await waitForRollout('Succeeded(R1)', reached('Succeeded', sha1), 120_000);

    // R2: the StatefulSet controller replaces db-1 first; it never becomes Ready, so db-0 is never touched.
    const sha2 = await repo.commit(statefulSet('v2', false));
    const stuck = await waitFor(
      'db-1 on the bad revision',
      async () => {
        const p = (await pods()).find((x) => x.metadata.name === 'db-1');
        return p?.metadata.annotations?.['example.com/tag'] === 'v2' ? p : undefined;
      },
      { timeoutMs: 60_000 },
    );
    const rb = await waitForRollout(
      'RolledBack(R2) at its deadline',
      (r) => r.state === 'RolledBack' && r.revision === sha2,
      120_000,
    );
    assert.equal(rb.status?.rollout?.reason, 'DeadlineExceeded');

    // convoy deletes the stuck Pod; the StatefulSet controller recreates it from the healthy template.
    await waitFor(
      'db-1 recreated from the healthy template and Ready',
      async () => {
        const p = (await pods()).find((x) => x.metadata.name === 'db-1');
        if (p === undefined || p.metadata.uid === stuck.metadata.uid) return false;
        return p.metadata.annotations?.['example.com/tag'] === 'v1' && ready(p);
      },
      { timeoutMs: 120_000 },
    );
    const said = await waitFor('the deletion said in an Event of the Release', async () => {
      const e = (await events(client, ns, 'app')).find(
        (x) => /db-1/.test(x.message ?? '') && /delet/i.test(x.message ?? ''),
      );
      return e?.message;
    });
    assert.match(said, /StatefulSet/);
    // db-0 was never on the bad revision and never touched.
    const db0 = (await pods()).find((x) => x.metadata.name === 'db-0');
    assert.equal(db0?.metadata.annotations?.['example.com/tag'], 'v1');
  }));
