// Lifecycle hooks of a sync end to end: convoy-controller-manager and convoy-observer as child processes
// against a real control plane whose Jobs complete, fail or hang through kwok. PreSync runs before wave 0
// and gates the waves, PostSync runs once the last wave is Healthy, and the rollout succeeds only after
// both (seen through watches, in order); a failed PreSync fails the sync and the rollout and runs SyncFail
// once; a hung hook times out; a forced sync re-runs the hooks, an unchanged render does not; bad hook
// annotations fail the render with a condition naming the object and apply nothing; a chart's pre-install
// ServiceAccount, Role and RoleBinding with hook-succeeded go once PreSync succeeded and come back only when
// PreSync runs again (a forced sync, a new render).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANNOTATION_FORCE_SYNC_AT, ANNOTATION_SYNC_REQUESTED_AT } from '../../src/api/constants.ts';
import type { InventoryHook, Release } from '../../src/api/types.ts';
import { runConvoy } from '../../src/cli/testsupport.ts';
import { hookWorkloadName } from '../../src/controller/release/decide/hooks/index.ts';
import { WORKLOAD_DEADLINE_MARGIN_S } from '../../src/controller/release/decide/hooks/workload.ts';
import { TEST_LABEL_NEVER_READY } from '../../src/testenv/index.ts';
import {
  annotate,
  configMap,
  deployment,
  hookEntry,
  hookJob,
  inlineRelease,
  type JobLike,
  jobCompleted,
  jobDone,
  manifests,
  ready,
} from '../support/hooks.ts';
import { added, Recorder, type Seen } from '../support/recorder.ts';
import {
  condition,
  getInventory,
  getRelease,
  isReady,
  mergePatch,
  readyReason,
  releaseRef,
  rolloutIs,
} from '../support/release.ts';
import { convoySystemPerFile, DEFAULT_HEALTH } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const env = convoySystemPerFile({ identity: 'hooks-sync' });

const isJob = (prefix: string) => (s: Seen) => s.kind === 'Job' && s.name.startsWith(`${prefix}-`);
const jobOf = (s: Seen) => s.object as JobLike;

/** Forces a sync of ns/app as /sync does; resolves once the controller handled it and Ready is True. */
async function forceSync(ns: string, what: string): Promise<string> {
  const forcedAt = new Date().toISOString();
  await annotate(env.client, ns, 'app', { [ANNOTATION_FORCE_SYNC_AT]: forcedAt });
  await env.waitForRelease(
    ns,
    'app',
    what,
    (x) => x.status?.lastHandledForceSyncAt === forcedAt && ready(x)?.status === 'True',
  );
  return forcedAt;
}

/** The hook ran again, and Succeeded, since the forced sync at `forcedAt` (whole seconds, as armed). */
const ranSince = (h: InventoryHook | undefined, forcedAt: string): h is InventoryHook =>
  h !== undefined &&
  Date.parse(h.createdAt ?? '') >= Math.floor(Date.parse(forcedAt) / 1000) * 1000 &&
  h.state === 'Succeeded' &&
  Date.parse(h.finishedAt ?? '') >= Date.parse(h.createdAt ?? '');

test('PreSync before wave 0, the waves in order, PostSync once the last wave is Healthy, and only then a Succeeded rollout; an unchanged render does not run them again, a forced sync does', async () => {
  const ns = 'hk-order';
  await env.namespace(ns);
  await Recorder.forNamespace(env.cp.kubeConfig, ns).during(async (rec) => {
    await env.client.create(
      inlineRelease(
        ns,
        'app',
        [
          hookJob('pre', 'PreSync'),
          configMap('a', 0),
          deployment('web', 1),
          hookJob('post', 'PostSync'),
          hookJob('page', 'SyncFail'),
        ],
        { healthAssessment: DEFAULT_HEALTH, failurePolicy: { deadline: '3m', rollback: 'Never' } },
      ),
    );
    const r = await env.waitForRelease(
      ns,
      'app',
      'Ready=True and rollout Succeeded',
      (x) => ready(x)?.status === 'True' && x.status?.rollout?.state === 'Succeeded',
    );
    const R = r.status?.lastSuccessful?.renderRef ?? '';
    assert.match(R, /^sha256:/);
    const pre = hookWorkloadName('pre', R);
    const post = hookWorkloadName('post', R);

    // the order of things as the watches saw them
    const heldForPre = await rec.seen(
      'Ready WaitingForHook before the waves',
      (s) => s.kind === 'Release' && ready(s.object as unknown as Release)?.reason === 'WaitingForHook',
    );
    const preAdded = await rec.seen('PreSync Job created', added(pre));
    const preDone = await rec.seen('PreSync Job Complete', jobCompleted(pre));
    const aAdded = await rec.seen(
      'wave 0 applied',
      (s) => s.kind === 'ConfigMap' && s.name === 'a' && s.type === 'add',
    );
    const webAdded = await rec.seen('wave 1 applied', (s) => s.kind === 'Deployment' && s.type === 'add');
    const webAvailable = await rec.seen(
      'wave 1 Available',
      (s) =>
        s.kind === 'Deployment' &&
        (s.object as { status?: { availableReplicas?: number } }).status?.availableReplicas === 1,
    );
    const postAdded = await rec.seen('PostSync Job created', added(post));
    const postDone = await rec.seen('PostSync Job Complete', jobCompleted(post));
    const succeeded = await rec.seen(
      'rollout Succeeded',
      (s) => s.kind === 'Release' && (s.object as unknown as Release).status?.rollout?.state === 'Succeeded',
    );
    const order = {
      preAdded,
      heldForPre,
      preDone,
      aAdded,
      webAdded,
      webAvailable,
      postAdded,
      postDone,
      succeeded,
    };
    const why = `${JSON.stringify(order)}\n${rec.summary()}`;
    assert.ok(preAdded < preDone && preDone < aAdded, `PreSync finished before wave 0: ${why}`);
    assert.ok(heldForPre < aAdded, why);
    assert.ok(aAdded < webAdded, `wave 0 before wave 1: ${why}`);
    assert.ok(webAvailable < postAdded, `PostSync after the last wave is Healthy: ${why}`);
    assert.ok(postDone < succeeded, `rollout Succeeded only after PostSync: ${why}`);
    assert.equal(rec.first(isJob('page')), undefined, 'SyncFail does not run on a good sync');

    const inv = await getInventory(env.client, ns, 'app');
    const hooks = new Map((inv?.hooks ?? []).map((h) => [h.name, h]));
    for (const [name, phase] of [
      ['pre', 'PreSync'],
      ['post', 'PostSync'],
    ] as const) {
      const h = hooks.get(name);
      assert.equal(h?.phase, phase);
      assert.equal(h?.renderRef, R);
      assert.equal(h?.namespace, ns);
      assert.equal(h?.state, 'Succeeded');
      assert.ok(Date.parse(h?.finishedAt ?? '') >= Date.parse(h?.createdAt ?? ''));
    }
    assert.equal(hooks.has('page'), false);

    // --- an unchanged render: a /sync and a spec change that renders the same R run nothing again
    const preUid = (
      await env.client.get<JobLike>({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: pre })
    )?.metadata.uid;
    const createdBefore = hooks.get('pre')?.createdAt;
    const seqBefore = rec.events.length;
    const n0 = await env.manager.reconciles();
    await annotate(env.client, ns, 'app', { [ANNOTATION_SYNC_REQUESTED_AT]: new Date().toISOString() });
    await mergePatch(env.client, releaseRef(ns, 'app'), { spec: { syncPolicy: { interval: '4s' } } });
    await env.manager.moreReconciles(3, { since: n0, timeoutMs: 60_000 });
    const again = await getRelease(env.client, ns, 'app');
    assert.equal(again?.status?.lastSuccessful?.renderRef, R, 'the same render');
    assert.equal((await hookEntry(env.client, ns, 'app', 'pre'))?.createdAt, createdBefore);
    assert.equal(
      (await env.client.get<JobLike>({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: pre }))
        ?.metadata.uid,
      preUid,
    );
    assert.equal(
      rec.events.slice(seqBefore).filter((s) => s.kind === 'Job' && s.type !== 'update').length,
      0,
      `no hook Job created or deleted: ${rec.summary()}`,
    );

    // --- a forced sync re-arms PreSync (a new run) and then PostSync
    const seqForced = rec.events.length;
    const forcedAt = await forceSync(ns, 'the forced sync handled and PostSync run again');
    const rerun = await waitFor(
      'PreSync and PostSync re-armed after the forced sync and Succeeded',
      async () => {
        const inv2 = await getInventory(env.client, ns, 'app');
        const p = inv2?.hooks?.find((h) => h.name === 'pre');
        const q = inv2?.hooks?.find((h) => h.name === 'post');
        return ranSince(p, forcedAt) && ranSince(q, forcedAt) ? { p, q } : false;
      },
      { timeoutMs: 60_000 },
    );
    assert.notEqual(rerun.p?.createdAt, createdBefore);
    const after = rec.events.slice(seqForced);
    const newPre = after.find(added(pre));
    assert.ok(newPre, `a new PreSync Job: ${rec.summary()}`);
    assert.notEqual(jobOf(newPre).metadata.uid, preUid);
    const newPreDone = after.find(jobCompleted(pre));
    const newPost = after.find(added(post));
    assert.ok(newPreDone && newPost && newPreDone.seq < newPost.seq, rec.summary());
    assert.equal(rec.first(isJob('page')), undefined, 'SyncFail still never ran');
  });
});

test('a failed PreSync blocks the waves, fails the sync with HookFailed, runs SyncFail once, and with a failurePolicy fails the rollout', async () => {
  const ns = 'hk-fail';
  await env.namespace(ns);
  await Recorder.forNamespace(env.cp.kubeConfig, ns, ['Job', 'ConfigMap']).during(async (rec) => {
    await env.client.create(
      inlineRelease(
        ns,
        'app',
        [hookJob('check', 'PreSync', { fail: true }), configMap('a'), hookJob('page', 'SyncFail')],
        {
          healthAssessment: DEFAULT_HEALTH,
          failurePolicy: { deadline: '5s', rollback: 'OnFailure' },
        },
      ),
    );
    const failed = await env.waitForRelease(ns, 'app', 'Ready=False HookFailed', readyReason('HookFailed'));
    assert.equal(ready(failed)?.status, 'False');
    assert.match(ready(failed)?.message ?? '', /PreSync hook check failed/);
    const R = failed.status?.lastAttempted?.renderRef ?? '';
    assert.equal(failed.status?.lastAttempted?.applied, false);

    const r = await env.waitForRelease(ns, 'app', 'rollout Failed', rolloutIs('Failed'));
    assert.equal(r.status?.rollout?.renderRef, R);
    assert.equal(ready(r)?.reason, 'HookFailed');

    // SyncFail ran for R, to its end, once
    const page = hookWorkloadName('page', R);
    await waitFor(
      'SyncFail Succeeded',
      async () => (await hookEntry(env.client, ns, 'app', 'page'))?.state === 'Succeeded',
      { timeoutMs: 60_000 },
    );
    await env.manager.moreReconciles(3, { timeoutMs: 60_000 });
    const pageAdds = rec.events.filter(added(page));
    assert.equal(pageAdds.length, 1, `SyncFail ran once: ${rec.summary()}`);
    const entry = await hookEntry(env.client, ns, 'app', 'page');
    assert.equal(entry?.phase, 'SyncFail');
    assert.equal(entry?.renderRef, R);

    // the waves never started
    assert.equal(
      rec.first((s) => s.kind === 'ConfigMap' && s.name === 'a'),
      undefined,
      rec.summary(),
    );
    assert.equal(
      await env.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' }),
      undefined,
    );
    const check = await hookEntry(env.client, ns, 'app', 'check');
    assert.equal(check?.state, 'Failed');
    assert.equal(
      rec.events.filter(added(hookWorkloadName('check', R))).length,
      1,
      'a failed PreSync is not re-run without a new render or a forced sync',
    );
  });
});

test('a hung hook times out at its timeout: Failed, reason Timeout', async () => {
  const ns = 'hk-hang';
  await env.namespace(ns);
  await env.client.create(
    inlineRelease(ns, 'app', [hookJob('wait', 'PreSync', { hang: true, timeout: '6s' }), configMap('a')]),
  );
  const r = await env.waitForRelease(ns, 'app', 'Ready=False HookFailed', readyReason('HookFailed'), 90_000);
  assert.match(ready(r)?.message ?? '', /PreSync hook wait failed: Timeout/);
  const h = await hookEntry(env.client, ns, 'app', 'wait');
  assert.equal(h?.state, 'Failed');
  assert.equal(h?.reason, 'Timeout');
  assert.equal(h?.timeout, '6s');
  const took = Date.parse(h?.finishedAt ?? '') - Date.parse(h?.createdAt ?? '');
  assert.ok(took >= 6000 && took <= 6000 + 15_000, `timed out after ${took} ms`);
  // convoy's own timeout decided (the Job still runs at that moment: its deadline is a margin later),
  // and the cluster then ends the Job at spec.activeDeadlineSeconds = timeout + margin, so a hook
  // convoy counted as failed does not run on unseen
  const jobRef = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    namespace: ns,
    name: hookWorkloadName('wait', r.status?.lastAttempted?.renderRef ?? ''),
  };
  const job = await env.client.get<JobLike & { spec?: { activeDeadlineSeconds?: number } }>(jobRef);
  assert.equal(job?.spec?.activeDeadlineSeconds, 6 + WORKLOAD_DEADLINE_MARGIN_S);
  assert.ok(!jobDone(job, 'Complete'));
  const ended = await waitFor(
    'the Job controller ends the hung hook at its deadline',
    async () => {
      const j = await env.client.get<JobLike>(jobRef);
      return jobDone(j, 'Failed') ? j : undefined;
    },
    { timeoutMs: 90_000 },
  );
  assert.ok(!jobDone(ended, 'Complete'));
  assert.equal(
    await env.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' }),
    undefined,
  );
});

test("a hook Job that cannot start says why within one observer pass: its Warning Event in the hook's message and Ready", async () => {
  const ns = 'hk-nosa';
  await env.namespace(ns);
  const job = hookJob('init', 'PreSync');
  const spec = job.spec as { template: { spec: Record<string, unknown> } };
  spec.template.spec.serviceAccountName = 'missing-sa';
  await env.client.create(inlineRelease(ns, 'app', [job, configMap('a')]));
  const h = await waitFor('the hook says why its Job has no Pod', async () => {
    const e = await hookEntry(env.client, ns, 'app', 'init');
    return e?.state === 'Running' && /FailedCreate/.test(e.message ?? '') ? e : undefined;
  });
  assert.match(h.message ?? '', /serviceaccount "missing-sa" not found/, h.message);
  const r = await env.waitForRelease(ns, 'app', 'Ready names the warning', (x) =>
    /waiting for PreSync hooks: init \(Job\/.*FailedCreate/.test(ready(x)?.message ?? ''),
  );
  assert.equal(ready(r)?.reason, 'WaitingForHook');
  assert.equal(
    await env.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' }),
    undefined,
    'the waves wait for the hook',
  );
});

test('bad hook annotations fail the render with a condition naming the object, and nothing is applied', async () => {
  const ns = 'hk-bad';
  await env.namespace(ns);
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      'on-deployment',
      deployment('web', 0, { 'convoy.kumodo.io/hook': 'PreSync' }),
      /Deployment\.apps hk-bad\/web.*only allowed on a Job \(batch\) or a Pod, not on a Deployment/,
    ],
    [
      'unknown-phase',
      hookJob('mig', 'PreSync', { phase: 'BeforeSync' }),
      /Job\.batch hk-bad\/mig.*must be one of .*not "BeforeSync"/,
    ],
    [
      'bad-timeout',
      hookJob('slow', 'PreSync', { timeout: 'ten minutes' }),
      /Job\.batch hk-bad\/slow.*hook-timeout.*not "ten minutes"/,
    ],
  ];
  for (const [name, bad] of cases) {
    await env.client.create(inlineRelease(ns, name, [configMap(`${name}-ok`), bad]));
  }
  for (const [name, , message] of cases) {
    const r = await env.waitForRelease(
      ns,
      name,
      'Ready=False RenderFailed',
      readyReason('RenderFailed'),
      60_000,
    );
    assert.equal(ready(r)?.status, 'False');
    assert.match(ready(r)?.message ?? '', message);
    assert.equal(r.status?.conditions?.find((c) => c.type === 'Stalled')?.status, 'True');
    assert.equal(r.status?.lastAttempted, undefined, 'nothing attempted');
    assert.equal(await getInventory(env.client, ns, name), undefined);
    assert.equal(
      await env.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: `${name}-ok` }),
      undefined,
    );
  }
  const jobs = await env.client.list({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns });
  assert.deepEqual(jobs, [], 'no hook ran');
});

test('SyncFail runs on the transition to Failed but not on RolledBack; a failed PostSync fails the sync', async () => {
  const ns = 'hk-syncfail';
  await env.namespace(ns);
  await Recorder.forNamespace(env.cp.kubeConfig, ns, ['Job']).during(async (rec) => {
    // 'rolled' gets a longer deadline: its first render must become healthy within it even on a loaded
    // machine, or that render fails (and rightly runs SyncFail) before it ever succeeds.
    const policy = (rollback: 'Never' | 'OnFailure', deadline = '5s') => ({
      healthAssessment: DEFAULT_HEALTH,
      failurePolicy: { deadline, rollback },
    });
    const hang = { [TEST_LABEL_NEVER_READY]: 'true' };
    // 'failed': its sync succeeds but its Deployment never becomes Ready, so the rollout fails
    await env.client.create(
      inlineRelease(
        ns,
        'failed',
        [deployment('stuck', 0, {}, hang), hookJob('page', 'SyncFail')],
        policy('Never'),
      ),
    );
    // 'rolled': a healthy first render, then a second one that never becomes healthy and is rolled back
    const good = [deployment('web', 0), hookJob('alert', 'SyncFail')];
    await env.client.create(inlineRelease(ns, 'rolled', good, policy('OnFailure', '20s')));
    // 'post': a PostSync hook that fails
    await env.client.create(
      inlineRelease(ns, 'post', [configMap('p0'), hookJob('smoke', 'PostSync', { fail: true })]),
    );

    const failed = await env.waitForRelease(ns, 'failed', 'rollout Failed', rolloutIs('Failed'));
    const RF = failed.status?.rollout?.renderRef ?? '';
    assert.equal(ready(failed)?.reason, 'Synced', 'the sync itself succeeded');
    await waitFor(
      'SyncFail of the Failed rollout Succeeded',
      async () => {
        const h = await hookEntry(env.client, ns, 'failed', 'page');
        return h?.renderRef === RF && h.state === 'Succeeded';
      },
      { timeoutMs: 60_000 },
    );

    const post = await env.waitForRelease(ns, 'post', 'Ready=False HookFailed', readyReason('HookFailed'));
    assert.match(ready(post)?.message ?? '', /PostSync hook smoke failed/);
    assert.ok(
      await env.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'p0' }),
      'applied',
    );
    assert.equal(post.status?.lastSuccessful, undefined, 'not a successful sync');

    const r1 = await env.waitForRelease(ns, 'rolled', 'rollout Succeeded', rolloutIs('Succeeded'));
    const R1 = r1.status?.lastHealthy?.renderRef;
    assert.equal(R1, r1.status?.lastSuccessful?.renderRef);
    await mergePatch(env.client, releaseRef(ns, 'rolled'), {
      spec: { source: { inline: { manifests: manifests([...good, deployment('bad', 0, {}, hang)]) } } },
    });
    const rolled = await env.waitForRelease(ns, 'rolled', 'rollout RolledBack', rolloutIs('RolledBack'));
    const R2 = rolled.status?.rollout?.renderRef ?? '';
    assert.notEqual(R2, R1);
    await env.manager.moreReconciles(3, { timeoutMs: 60_000 });
    assert.equal(
      rec.first(
        (s) =>
          s.type === 'add' &&
          (s.name === hookWorkloadName('alert', R2) || s.name === hookWorkloadName('alert', R1 ?? '')),
      ),
      undefined,
      `no SyncFail for a rollback: ${rec.summary()}`,
    );
    assert.equal(await hookEntry(env.client, ns, 'rolled', 'alert'), undefined);
  });
});

test('a new render runs its PreSync hooks again (replacing the old run), and a hook that left the render leaves with its workload', async () => {
  const ns = 'hk-renders';
  await env.namespace(ns);
  const v1 = [hookJob('migrate', 'PreSync'), hookJob('seed', 'PreSync'), configMap('c', 0, { v: '1' })];
  await env.client.create(inlineRelease(ns, 'app', v1));
  const r1 = await env.waitForRelease(ns, 'app', 'Ready=True', isReady);
  const R1 = r1.status?.lastSuccessful?.renderRef ?? '';
  const job = (name: string) =>
    env.client.get<JobLike>({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name });
  assert.ok(await job(hookWorkloadName('migrate', R1)));
  assert.ok(await job(hookWorkloadName('seed', R1)));

  // v2: migrate stays (a new run for the new render), seed leaves the render
  const v2 = [hookJob('migrate', 'PreSync'), configMap('c', 0, { v: '2' })];
  await env.client.request({
    method: 'PATCH',
    path: await env.client.pathOf({ apiVersion: r1.apiVersion, kind: 'Release', namespace: ns, name: 'app' }),
    contentType: 'application/merge-patch+json',
    body: { spec: { source: { inline: { manifests: manifests(v2) } } } },
  });
  const r2 = await env.waitForRelease(
    ns,
    'app',
    'Ready=True for the new render',
    (x) => ready(x)?.status === 'True' && x.status?.lastSuccessful?.renderRef !== R1,
  );
  const R2 = r2.status?.lastSuccessful?.renderRef ?? '';
  const inv = await getInventory(env.client, ns, 'app');
  assert.deepEqual(
    inv?.hooks?.map((h) => [h.name, h.renderRef, h.state]),
    [['migrate', R2, 'Succeeded']],
  );
  assert.ok(await job(hookWorkloadName('migrate', R2)));
  await waitFor('the old runs deleted', async () => {
    const [m, s] = await Promise.all([
      job(hookWorkloadName('migrate', R1)),
      job(hookWorkloadName('seed', R1)),
    ]);
    return m === undefined && s === undefined;
  });
});

test("a chart's pre-install ServiceAccount, Role and RoleBinding with hook-succeeded go in by weight between PreSync Jobs, go once PreSync succeeded, stay gone for R, and come back for a forced sync or a new render", async () => {
  const ns = 'hk-resources';
  await env.namespace(ns);
  // As argo-cd's chart has them: RBAC hook resources of lower weights than the Job that runs under them.
  const helmHook = (weight: string, policy?: string) => ({
    'helm.sh/hook': 'pre-install,pre-upgrade',
    'helm.sh/hook-weight': weight,
    ...(policy === undefined ? {} : { 'helm.sh/hook-delete-policy': policy }),
  });
  const rbac = 'rbac.authorization.k8s.io';
  const resources = [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'secret-init', annotations: helmHook('-5', 'before-hook-creation,hook-succeeded') },
    },
    {
      apiVersion: `${rbac}/v1`,
      kind: 'Role',
      metadata: { name: 'secret-init', annotations: helmHook('-5', 'hook-succeeded') },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    },
    {
      apiVersion: `${rbac}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'secret-init', annotations: helmHook('-4', 'hook-succeeded') },
      roleRef: { apiGroup: rbac, kind: 'Role', name: 'secret-init' },
      subjects: [{ kind: 'ServiceAccount', name: 'secret-init', namespace: ns }],
    },
  ];
  // Without a delete policy (Helm's default, before-hook-creation): an ordinary object that stays.
  const settings = {
    ...configMap('init-settings'),
    metadata: { name: 'init-settings', annotations: helmHook('-5') },
  };
  const job = hookJob('secret-init', 'PreSync');
  (job.spec as { template: { spec: Record<string, unknown> } }).template.spec.serviceAccountName =
    'secret-init';
  // A lighter Job: Helm runs it, and waits for it, before creating the weight -5 resources.
  const prepareJob = hookJob('prepare', 'PreSync');
  const prepareMeta = prepareJob.metadata as { annotations: Record<string, string> };
  const prepare = {
    ...prepareJob,
    metadata: {
      ...prepareMeta,
      annotations: { ...prepareMeta.annotations, 'convoy.kumodo.io/hook-weight': '-6' },
    },
  };
  const objs = (v: string) => [...resources, settings, prepare, job, configMap('a', 0, { v })];
  const KINDS = ['ServiceAccount', 'Role', 'RoleBinding'];
  const rec = new Recorder(env.cp.kubeConfig, [
    { kind: 'Job', path: `/apis/batch/v1/namespaces/${ns}/jobs` },
    {
      kind: 'ServiceAccount',
      path: `/api/v1/namespaces/${ns}/serviceaccounts`,
      fieldSelector: 'metadata.name=secret-init',
    },
    { kind: 'Role', path: `/apis/${rbac}/v1/namespaces/${ns}/roles` },
    { kind: 'RoleBinding', path: `/apis/${rbac}/v1/namespaces/${ns}/rolebindings` },
  ]);
  await rec.during(async () => {
    await env.client.create(inlineRelease(ns, 'app', objs('1'), { healthAssessment: DEFAULT_HEALTH }));
    const live = (kind: string) =>
      env.client.get({
        apiVersion: kind === 'ServiceAccount' ? 'v1' : `${rbac}/v1`,
        kind,
        namespace: ns,
        name: 'secret-init',
      });
    const inventoryKinds = async () =>
      ((await getInventory(env.client, ns, 'app'))?.entries ?? []).map((e) => `${e.kind}/${e.name}`).sort();
    /** Synced, Healthy and in sync for `R` (any render when undefined), the hook resources gone. */
    const settled = async (what: string, other?: string) => {
      const r = await env.waitForRelease(
        ns,
        'app',
        what,
        (x) =>
          ready(x)?.status === 'True' &&
          x.status?.lastSuccessful?.renderRef !== other &&
          condition(x, 'Healthy')?.status === 'True' &&
          condition(x, 'Drifted')?.status === 'False' &&
          x.status?.driftSummary?.total === 2,
      );
      await waitFor(`${what}: the hook-succeeded resources deleted`, async () =>
        (await Promise.all(KINDS.map(live))).every((o) => o === undefined),
      );
      assert.deepEqual(await inventoryKinds(), ['ConfigMap/a', 'ConfigMap/init-settings']);
      return r.status?.lastSuccessful?.renderRef ?? '';
    };
    const R1 = await settled('Ready, Healthy and in sync over the two ConfigMaps');
    const job1 = hookWorkloadName('secret-init', R1);
    const order = (from: number, jobName: string, prepareName: string) => {
      const after = rec.events.filter((e) => e.seq >= from);
      const at = (what: string, ok: (s: Seen) => boolean) => {
        const s = after.find(ok);
        assert.ok(s, `${what}: ${rec.summary()}`);
        return s.seq;
      };
      const jobAdded = at('the Job created', added(jobName));
      // not the delete of an earlier run of the same name (a forced sync replaces it)
      const jobDoneAt = at('the Job Complete', (s) => s.type !== 'delete' && jobCompleted(jobName)(s));
      const prepared = at(
        'the weight -6 Job Complete',
        (s) => s.type !== 'delete' && jobCompleted(prepareName)(s),
      );
      for (const kind of KINDS) {
        const created = at(`${kind} created`, (s) => s.kind === kind && s.type === 'add');
        const deleted = at(`${kind} deleted`, (s) => s.kind === kind && s.type === 'delete');
        assert.ok(prepared < created, `${kind} after the lighter Job succeeded: ${rec.summary()}`);
        assert.ok(created < jobAdded, `${kind} before the Job: ${rec.summary()}`);
        assert.ok(jobDoneAt < deleted, `${kind} deleted after the Job succeeded: ${rec.summary()}`);
      }
    };
    order(0, job1, hookWorkloadName('prepare', R1));
    assert.equal((await hookEntry(env.client, ns, 'app', 'secret-init'))?.state, 'Succeeded');
    assert.ok(
      await env.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'init-settings' }),
    );
    // `convoy diff` of R1 says so: the spent resources stay out, a sync of R1 changes nothing.
    const diff = await runConvoy(['diff', 'app', '-n', ns, '--kubeconfig', env.cp.kubeconfigPath]);
    assert.equal(diff.code, 0, `no differences:\n${diff.stdout}${diff.stderr}`);
    for (const kind of KINDS) {
      assert.match(
        diff.stdout,
        new RegExp(
          `^spent {2}(rbac\\.authorization\\.k8s\\.io/)?${kind} ${ns}/secret-init \\(deleted after its hooks ran`,
          'm',
        ),
      );
    }

    // --- more reconciles of the same render (a /sync) resurrect nothing
    const seq = rec.events.length;
    const n0 = await env.manager.reconciles();
    await annotate(env.client, ns, 'app', { [ANNOTATION_SYNC_REQUESTED_AT]: new Date().toISOString() });
    await env.manager.moreReconciles(3, { since: n0, timeoutMs: 60_000 });
    const again = await getRelease(env.client, ns, 'app');
    assert.equal(again?.status?.lastSuccessful?.renderRef, R1);
    assert.equal(ready(again)?.status, 'True');
    assert.deepEqual(
      rec.events
        .slice(seq)
        .filter((e) => e.type !== 'update')
        .map((e) => `${e.type} ${e.kind}/${e.name}`),
      [],
      'nothing created or deleted',
    );
    assert.deepEqual(await inventoryKinds(), ['ConfigMap/a', 'ConfigMap/init-settings']);

    // --- a forced sync runs PreSync of R again: they come back before its Job and go after it
    const seqForced = rec.events.length;
    const forcedAt = await forceSync(ns, 'the forced sync handled');
    await waitFor('the hook run again after the forced sync, Succeeded', async () =>
      ranSince(await hookEntry(env.client, ns, 'app', 'secret-init'), forcedAt),
    );
    assert.equal(await settled('Ready, Healthy and in sync after the forced sync'), R1);
    order(seqForced, job1, hookWorkloadName('prepare', R1));

    // --- a new render applies them again before its Job runs, and deletes them once it succeeded
    const seq2 = rec.events.length;
    await mergePatch(env.client, releaseRef(ns, 'app'), {
      spec: { source: { inline: { manifests: manifests(objs('2')) } } },
    });
    const R2 = await settled('Ready, Healthy and in sync for the new render', R1);
    order(seq2, hookWorkloadName('secret-init', R2), hookWorkloadName('prepare', R2));
  });
});
