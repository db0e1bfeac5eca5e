// Deleting a Release with delete hooks, end to end: convoy-controller-manager and convoy-observer as child
// processes against a real control plane with kwok. PreDelete runs first, then the objects are pruned,
// then PostDelete runs, each waiting for the observer's terminal state; the inventory and the finalizer go
// only after the last armed hook finished (a SyncFail hook never armed is not waited for). A failed
// PreDelete blocks the deletion with HookFailed, keeps the objects, and a forced sync runs it again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANNOTATION_FORCE_SYNC_AT, FINALIZER, INVENTORY_FINALIZER } from '../../src/api/constants.ts';
import type { Release } from '../../src/api/types.ts';
import { hookWorkloadName } from '../../src/controller/release/decide/hooks/index.ts';
import {
  annotate,
  configMap,
  deployment,
  hookEntry,
  hookJob,
  inlineRelease,
  type JobLike,
  jobCompleted,
  ready,
} from '../support/hooks.ts';
import { added, Recorder, type Seen } from '../support/recorder.ts';
import { getInventory, isReady, readyReason, releaseRef } from '../support/release.ts';
import { convoySystemPerFile, DEFAULT_HEALTH } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const env = convoySystemPerFile({ identity: 'hooks-deletion' });

const asRelease = (s: Seen) => s.object as unknown as Release;

async function renderSecrets(ns: string) {
  return env.client.list(
    { apiVersion: 'v1', kind: 'Secret', namespace: ns },
    { labelSelector: 'convoy.kumodo.io/render-ref' },
  );
}

test('deletion runs PreDelete, then the prune, then PostDelete, and the inventory goes only after the last hook finished', async () => {
  const ns = 'hkd-order';
  await env.namespace(ns);
  await env.client.create(
    inlineRelease(
      ns,
      'app',
      [
        configMap('c0', 0),
        deployment('web', 1),
        hookJob('drain', 'PreDelete'),
        hookJob('cleanup', 'PostDelete'),
        hookJob('page', 'SyncFail'),
      ],
      { healthAssessment: DEFAULT_HEALTH },
    ),
  );
  const r = await env.waitForRelease(ns, 'app', 'Ready=True', isReady);
  const R = r.status?.lastSuccessful?.renderRef ?? '';
  const drain = hookWorkloadName('drain', R);
  const cleanup = hookWorkloadName('cleanup', R);
  assert.equal((await renderSecrets(ns)).length > 0, true, 'the render is stored');

  await Recorder.forNamespace(env.cp.kubeConfig, ns).during(async (rec) => {
    await env.client.delete(releaseRef(ns, 'app'));
    await env.waitForReleaseGone(ns, 'app', 120_000, () => rec.summary());

    const drainAdded = await rec.seen('PreDelete Job created', added(drain));
    const drainDone = await rec.seen('PreDelete Job Complete', jobCompleted(drain));
    const drainFinished = await rec.seen(
      'PreDelete finished in the inventory',
      (s) =>
        s.kind === 'ReleaseInventory' &&
        (s.object as { hooks?: { name: string; state?: string }[] }).hooks?.some(
          (h) => h.name === 'drain' && h.state === 'Succeeded',
        ) === true,
    );
    const c0Deleted = await rec.seen(
      'c0 pruned',
      (s) => s.kind === 'ConfigMap' && s.name === 'c0' && s.type === 'delete',
    );
    const webDeleted = await rec.seen(
      'web pruned',
      (s) => s.kind === 'Deployment' && s.name === 'web' && s.type === 'delete',
    );
    const cleanupAdded = await rec.seen('PostDelete Job created', added(cleanup));
    const cleanupDone = await rec.seen('PostDelete Job Complete', jobCompleted(cleanup));
    const invDeleted = await rec.seen(
      'inventory deleted',
      (s) => s.kind === 'ReleaseInventory' && s.type === 'delete',
    );
    const deleting = await rec.seen(
      'Ready=Unknown Deleting while hooks run',
      (s) => s.kind === 'Release' && ready(asRelease(s))?.reason === 'Deleting',
    );
    const order = {
      drainAdded,
      deleting,
      drainDone,
      drainFinished,
      webDeleted,
      c0Deleted,
      cleanupAdded,
      cleanupDone,
      invDeleted,
    };
    const why = `${JSON.stringify(order)}\n${rec.summary()}`;
    assert.ok(drainAdded < drainDone && drainDone <= drainFinished, why);
    assert.ok(drainFinished < Math.min(c0Deleted, webDeleted), `prune after PreDelete finished: ${why}`);
    assert.ok(webDeleted < c0Deleted, `highest wave first: ${why}`);
    assert.ok(Math.max(c0Deleted, webDeleted) < cleanupAdded, `PostDelete after the prune: ${why}`);
    assert.ok(cleanupDone < invDeleted, `inventory deleted after the last hook finished: ${why}`);
    assert.equal(
      rec.first((s) => s.kind === 'Job' && s.name.startsWith('page-')),
      undefined,
      'SyncFail never ran',
    );

    // everything convoy made is gone: hook workloads (Delete policy), render Secrets
    for (const name of [drain, cleanup]) {
      await waitFor(`${name} deleted`, async () => {
        const j = await env.client.get({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name });
        return j === undefined;
      });
    }
    assert.deepEqual(await renderSecrets(ns), []);
  });
});

test('a failed PreDelete blocks the deletion with HookFailed and keeps the objects; a forced sync runs it again', async () => {
  const ns = 'hkd-block';
  await env.namespace(ns);
  await env.client.create(
    inlineRelease(ns, 'app', [configMap('keep', 0), hookJob('drain', 'PreDelete', { fail: true })]),
  );
  const r = await env.waitForRelease(ns, 'app', 'Ready=True', isReady);
  const R = r.status?.lastSuccessful?.renderRef ?? '';
  await env.client.delete(releaseRef(ns, 'app'));

  const blocked = await env.waitForRelease(ns, 'app', 'Ready=False HookFailed', readyReason('HookFailed'));
  assert.equal(ready(blocked)?.status, 'False');
  assert.match(
    ready(blocked)?.message ?? '',
    /deletion blocked: PreDelete hook drain failed.*nothing has been deleted yet/,
  );
  assert.ok(blocked.metadata.finalizers?.includes(FINALIZER));
  assert.ok(await env.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'keep' }));
  const first = await hookEntry(env.client, ns, 'app', 'drain');
  assert.equal(first?.state, 'Failed');
  const uid = (
    await env.client.get<JobLike>({
      apiVersion: 'batch/v1',
      kind: 'Job',
      namespace: ns,
      name: hookWorkloadName('drain', R),
    })
  )?.metadata.uid;
  assert.ok(uid);

  // a forced sync re-runs the failed phase: a new Job, a new createdAt, and (it fails again) blocked again
  const forcedAt = new Date().toISOString();
  await annotate(env.client, ns, 'app', { [ANNOTATION_FORCE_SYNC_AT]: forcedAt });
  const rerun = await waitFor(
    'PreDelete re-armed and Failed again',
    async () => {
      const h = await hookEntry(env.client, ns, 'app', 'drain');
      const armed = Date.parse(h?.createdAt ?? '') >= Math.floor(Date.parse(forcedAt) / 1000) * 1000;
      return (
        armed && h?.state === 'Failed' && Date.parse(h.finishedAt ?? '') >= Date.parse(h.createdAt ?? '') && h
      );
    },
    { timeoutMs: 60_000 },
  );
  assert.notEqual(rerun.createdAt, first?.createdAt);
  const job = await env.client.get<JobLike>({
    apiVersion: 'batch/v1',
    kind: 'Job',
    namespace: ns,
    name: hookWorkloadName('drain', R),
  });
  assert.notEqual(job?.metadata.uid, uid, 'a new run, not the old Job');
  // The forced sync is consumed when the hook is re-armed (Ready=Deleting while it runs); the reconcile
  // after the observer reports the failure blocks the deletion again.
  const still = await env.waitForRelease(
    ns,
    'app',
    'forced sync handled, blocked again',
    (x) => x.status?.lastHandledForceSyncAt === forcedAt && ready(x)?.reason === 'HookFailed',
  );
  assert.match(ready(still)?.message ?? '', /deletion blocked: PreDelete hook drain failed/);
  assert.ok(await env.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'keep' }));

  // giving up on the hook: removing the finalizer lets the Release go, the objects stay
  await env.client.request({
    method: 'PATCH',
    path: await env.client.pathOf(releaseRef(ns, 'app')),
    contentType: 'application/json-patch+json',
    body: [{ op: 'remove', path: '/metadata/finalizers' }],
  });
  await env.waitForReleaseGone(ns, 'app', 30_000);
  assert.ok(await env.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'keep' }));
  // Its inventory, whose protection finalizer nothing else would remove, goes with it once the garbage
  // collector deletes it — which waits for the collector to discover the CRDs (a 30 s resync) on a young
  // control plane.
  await waitFor('the inventory gone', async () => (await getInventory(env.client, ns, 'app')) === undefined, {
    timeoutMs: 90_000,
  }).catch(async (err: Error) => {
    throw new Error(
      `${err.message}\n${JSON.stringify((await getInventory(env.client, ns, 'app'))?.metadata)}\n${env.logs()}`,
    );
  });
});

// With foreground cascade the garbage collector deletes the Release's dependents (its inventory) and waits
// for them to be gone. The inventory's protection finalizer keeps it readable for the prune whichever of
// the two gets there first; the Release goes only once convoy has taken that finalizer off again.
test('a Release deleted with foreground cascade is pruned and goes, its inventory with it', async () => {
  const ns = 'hkd-foreground';
  await env.namespace(ns);
  await env.client.create(inlineRelease(ns, 'app', [configMap('c0', 0), deployment('web', 0)]));
  await env.waitForRelease(ns, 'app', 'Ready=True', isReady);
  assert.ok((await getInventory(env.client, ns, 'app'))?.metadata.finalizers?.includes(INVENTORY_FINALIZER));

  await env.client.delete(releaseRef(ns, 'app'), { propagationPolicy: 'Foreground' });
  // The garbage collector takes the foregroundDeletion finalizer off (after its CRD discovery, see above).
  await env.waitForReleaseGone(ns, 'app', 90_000);
  assert.equal(await getInventory(env.client, ns, 'app'), undefined);
  assert.equal(
    await env.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'c0' }),
    undefined,
  );
  assert.equal(
    await env.client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web' }),
    undefined,
  );
});
