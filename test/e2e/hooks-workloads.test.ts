// The hook runner's edge against a real control plane with simulated nodes: hook Jobs made from a
// render's hooks run to completion or failure, delete policies remove the previous workload before a new
// arming, a forced re-arm replaces the same-named workload, a crashed arming is adopted, and an object
// that is not convoy's is never touched.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FIELD_MANAGERS, type HookPhase } from '../../src/api/constants.ts';
import type { InventoryHook } from '../../src/api/types.ts';
import { createHookWorkload, deleteHookWorkloads } from '../../src/controller/release/act/hooks/index.ts';
import {
  ANNOTATION_HOOK_CREATED_AT,
  type HookArming,
  type HookPhaseDecision,
  hookWorkloadName,
  planHookPhase,
} from '../../src/controller/release/decide/hooks/index.ts';
import { HookFailedError } from '../../src/controller/release/errors.ts';
import { KubeClient } from '../../src/kube/client.ts';
import type { Obj } from '../../src/render/types.ts';
import { type ControlPlane, startControlPlane, TEST_LABEL_FAIL } from '../../src/testenv/index.ts';
import { createNamespace } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'hooks';
const LABEL = `${NS}.web`;
const R1 = `sha256:${'1a'.repeat(32)}`;
const R2 = `sha256:${'2b'.repeat(32)}`;
const OPTS = { releaseLabel: LABEL, defaultNamespace: NS, goneTimeoutMs: 60_000 };

interface JobLike {
  metadata: {
    uid?: string;
    name?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  status?: { conditions?: { type: string; status: string; message?: string }[] };
}
interface PodLike {
  metadata: { uid?: string; labels?: Record<string, string> };
  status?: { phase?: string };
}

/** A hook Job as a render carries it: backoffLimit 0 so one failed pod fails it without retries. */
function hookJob(name: string, phase: string, opts: { fail?: boolean; policy?: string } = {}): Obj {
  const annotations: Record<string, string> = { 'convoy.kumodo.io/hook': phase };
  if (opts.policy !== undefined) annotations['convoy.kumodo.io/hook-delete-policy'] = opts.policy;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: NS, annotations },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { labels: { app: name, ...(opts.fail ? { [TEST_LABEL_FAIL]: 'true' } : {}) } },
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'main', image: 'registry.invalid/convoy/hook:1' }],
        },
      },
    },
  };
}

function hookPod(name: string, opts: { fail?: boolean } = {}): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: NS,
      annotations: { 'convoy.kumodo.io/hook': 'PostSync' },
      labels: opts.fail ? { [TEST_LABEL_FAIL]: 'true' } : {},
    },
    // no restartPolicy: the hook runner makes it Never
    spec: { containers: [{ name: 'main', image: 'registry.invalid/convoy/hook:1' }] },
  };
}

/** The one hook the decision arms (it must arm exactly one). */
function armed(d: HookPhaseDecision): HookArming {
  if (d.kind !== 'arm') throw new Error(`expected an arm decision, got ${JSON.stringify(d)}`);
  const [arming] = d.hooks;
  assert.ok(arming, JSON.stringify(d));
  return arming;
}

/** The arming of the first run of `hooks` for `renderRef`: nothing recorded yet. */
const firstArming = (phase: HookPhase, hooks: readonly Obj[], renderRef = R1) =>
  armed(planHookPhase({ phase, hooks, renderRef, entries: [], now: Date.now() }));

/** The arming once the observer recorded `entry` (finished), for `renderRef`, forced at `forcedAt` if given. */
const nextArming = (
  phase: HookPhase,
  hooks: readonly Obj[],
  renderRef: string,
  entry: InventoryHook,
  forcedAt?: string,
) =>
  armed(
    planHookPhase({
      phase,
      hooks,
      renderRef,
      entries: [entry],
      ...(forcedAt === undefined ? {} : { forcedAt }),
      now: Date.now(),
    }),
  );

/** What the observer would write once the workload finished (its fields of the entry). */
function finished(entry: InventoryHook, state: 'Succeeded' | 'Failed'): InventoryHook {
  return { ...entry, state, reason: state, finishedAt: entry.createdAt };
}

const condition = (j: JobLike | undefined, type: string) =>
  j?.status?.conditions?.find((c) => c.type === type && c.status === 'True');

describe('hook workloads on a real control plane', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  const job = (name: string) =>
    client.get<JobLike>({ apiVersion: 'batch/v1', kind: 'Job', namespace: NS, name });
  const pod = (name: string) => client.get<PodLike>({ apiVersion: 'v1', kind: 'Pod', namespace: NS, name });
  const podsOf = (jobName: string) =>
    client.list<PodLike>(
      { apiVersion: 'v1', kind: 'Pod', namespace: NS },
      { labelSelector: `job-name=${jobName}` },
    );
  /** Waits until the Job has the condition `type` True; returns the Job. */
  const jobReaches = (what: string, name: string, type: 'Complete' | 'Failed') =>
    waitFor(
      what,
      async () => {
        const j = await job(name);
        return condition(j, type) ? j : undefined;
      },
      { timeoutMs: 60_000 },
    );
  const podsGone = (what: string, jobName: string) =>
    waitFor(what, async () => (await podsOf(jobName)).length === 0, { timeoutMs: 60_000 });

  before(async () => {
    cp = await startControlPlane({ workloads: true, nodes: 1 });
    client = new KubeClient(cp.kubeConfig);
    await createNamespace(client, NS);
  });
  after(async () => {
    await cp?.stop();
  });

  it('creates a PreSync hook Job from the render, labelled and annotated, and it completes', async () => {
    const hooks = [hookJob('migrate', 'PreSync')];
    const arming = firstArming('PreSync', hooks);
    const created = await createHookWorkload(client, arming, OPTS);
    assert.equal(created.adopted, false);
    assert.equal(created.entry.workloadName, hookWorkloadName('migrate', R1));

    const done = await jobReaches('hook Job Complete', arming.workloadName, 'Complete');
    assert.equal(done.metadata.labels?.['convoy.kumodo.io/release'], LABEL);
    assert.equal(done.metadata.annotations?.['convoy.kumodo.io/hook'], 'PreSync');
    assert.equal(done.metadata.annotations?.['convoy.kumodo.io/render-ref'], R1);
    assert.equal(done.metadata.annotations?.[ANNOTATION_HOOK_CREATED_AT], arming.createdAt);
    // created by Server-Side Apply under the deployer's field manager
    const full = await client.get<{ metadata: { managedFields?: { manager: string; operation: string }[] } }>(
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        namespace: NS,
        name: arming.workloadName,
      },
    );
    assert.ok(
      full?.metadata.managedFields?.some(
        (m) => m.manager === FIELD_MANAGERS.deployer && m.operation === 'Apply',
      ),
    );
  });

  it('a failing hook Job fails', async () => {
    const hooks = [hookJob('check', 'PreSync', { fail: true })];
    const arming = firstArming('PreSync', hooks);
    await createHookWorkload(client, arming, OPTS);
    const failed = await jobReaches('hook Job Failed', arming.workloadName, 'Failed');
    assert.equal(condition(failed, 'Failed')?.status, 'True');
    assert.equal(condition(await job(arming.workloadName), 'Complete'), undefined);
  });

  it('BeforeHookCreation deletes the previous render’s workload (and its pods) before creating the next', async () => {
    const hooks = [hookJob('seed', 'PreSync')];
    const first = firstArming('PreSync', hooks);
    const { entry } = await createHookWorkload(client, first, OPTS);
    await jobReaches('R1 seed Job Complete', first.workloadName, 'Complete');
    assert.equal((await podsOf(first.workloadName)).length, 1);

    // the observer recorded the result; a new render arms the hook again
    const second = nextArming('PreSync', hooks, R2, finished(entry, 'Succeeded'));
    assert.deepEqual(second.deleteFirst, { kind: 'Job', namespace: NS, name: first.workloadName });
    await createHookWorkload(client, second, OPTS);

    assert.equal(await job(first.workloadName), undefined, 'the old Job is gone once the new one is created');
    assert.ok(await job(second.workloadName));
    await podsGone('the old Job’s pods garbage-collected', first.workloadName);
    await jobReaches('R2 seed Job Complete', second.workloadName, 'Complete');
  });

  it('a policy without BeforeHookCreation keeps the previous workload', async () => {
    const hooks = [hookJob('report', 'PreSync', { policy: 'HookFailed' })];
    const first = firstArming('PreSync', hooks);
    const { entry } = await createHookWorkload(client, first, OPTS);
    const second = nextArming('PreSync', hooks, R2, finished(entry, 'Succeeded'));
    assert.equal(second.deleteFirst, undefined);
    await createHookWorkload(client, second, OPTS);
    assert.ok(await job(first.workloadName));
    assert.ok(await job(second.workloadName));
  });

  it('a forced sync replaces the same-named workload of the same render with a new run', async () => {
    const hooks = [hookJob('warm', 'PreSync', { fail: true })];
    const first = firstArming('PreSync', hooks);
    const { entry } = await createHookWorkload(client, first, OPTS);
    const old = await jobReaches('first run Failed', first.workloadName, 'Failed');

    const forcedAt = new Date(Date.parse(entry.createdAt ?? '') + 2000).toISOString();
    const again = nextArming('PreSync', hooks, R1, finished(entry, 'Failed'), forcedAt);
    assert.equal(again.rearm, true);
    assert.equal(again.workloadName, first.workloadName);
    const created = await createHookWorkload(client, again, OPTS);
    assert.equal(created.adopted, false);
    const now = await job(again.workloadName);
    assert.notEqual(now?.metadata.uid, old.metadata.uid, 'a new Job, not the old one');
    assert.equal(now?.metadata.annotations?.[ANNOTATION_HOOK_CREATED_AT], again.createdAt);
    assert.ok(Date.parse(again.createdAt) >= Date.parse(forcedAt));
  });

  it('adopts the workload of an arming that was never recorded instead of running it twice', async () => {
    const hooks = [hookJob('once', 'PreSync')];
    const first = firstArming('PreSync', hooks);
    await createHookWorkload(client, first, OPTS);
    const uid = (await job(first.workloadName))?.metadata.uid;
    // the controller died before recording the entry: the next reconcile plans the same arming again
    const again = firstArming('PreSync', hooks);
    const created = await createHookWorkload(client, again, OPTS);
    assert.equal(created.adopted, true);
    assert.equal(created.entry.createdAt, first.createdAt);
    assert.equal((await job(first.workloadName))?.metadata.uid, uid);
  });

  it('never touches an object of the same name that is not this Release’s hook workload', async () => {
    const hooks = [hookJob('foreign', 'PreSync')];
    const arming = firstArming('PreSync', hooks);
    const theirs = hookJob(arming.workloadName, 'PreSync');
    const { annotations: _, ...md } = theirs.metadata;
    await client.create({ ...theirs, metadata: md });
    const uid = (await job(arming.workloadName))?.metadata.uid;
    await assert.rejects(
      createHookWorkload(client, arming, OPTS),
      (e: unknown) => e instanceof HookFailedError,
    );
    assert.equal((await job(arming.workloadName))?.metadata.uid, uid);
  });

  it('a Pod hook gets restartPolicy Never and is replaced once its old pod has terminated', async () => {
    const hooks = [hookPod('probe', { fail: true })];
    const first = firstArming('PostSync', hooks);
    const { entry } = await createHookWorkload(client, first, OPTS);
    const failed = await waitFor(
      'hook Pod Failed',
      async () => {
        const p = await pod(first.workloadName);
        return p?.status?.phase === 'Failed' ? p : undefined;
      },
      { timeoutMs: 60_000 },
    );
    const spec = (
      await client.get<{ spec?: { restartPolicy?: string } }>({
        apiVersion: 'v1',
        kind: 'Pod',
        namespace: NS,
        name: first.workloadName,
      })
    )?.spec;
    assert.equal(spec?.restartPolicy, 'Never');

    const forcedAt = new Date(Date.parse(entry.createdAt ?? '') + 2000).toISOString();
    const again = nextArming('PostSync', hooks, R1, finished(entry, 'Failed'), forcedAt);
    await createHookWorkload(client, again, OPTS);
    const replaced = await pod(again.workloadName);
    assert.notEqual(replaced?.metadata.uid, failed.metadata.uid);
  });

  it('cleanup per HookSucceeded deletes the finished Job and its pods', async () => {
    const hooks = [hookJob('tidy', 'PostSync', { policy: 'HookSucceeded' })];
    const arming = firstArming('PostSync', hooks);
    const { entry } = await createHookWorkload(client, arming, OPTS);
    await jobReaches('tidy Job Complete', arming.workloadName, 'Complete');
    const d = planHookPhase({
      phase: 'PostSync',
      hooks,
      renderRef: R1,
      entries: [finished(entry, 'Succeeded')],
      now: Date.now(),
    });
    assert.equal(d.kind, 'succeeded');
    if (d.kind !== 'succeeded') return;
    assert.deepEqual(d.cleanup, [{ kind: 'Job', namespace: NS, name: arming.workloadName }]);
    assert.deepEqual(await deleteHookWorkloads(client, d.cleanup, NS), { deleted: 1, errors: [] });
    assert.equal(await job(arming.workloadName), undefined);
    await podsGone('tidy pods gone', arming.workloadName);
    // a second cleanup of the same decision is harmless
    assert.deepEqual(await deleteHookWorkloads(client, d.cleanup, NS), { deleted: 0, errors: [] });
  });
});
