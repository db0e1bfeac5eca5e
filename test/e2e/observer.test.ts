// The observer's health loop against the real control plane with kwok: the test plays the
// controller-manager (it applies the Release, its status.lastAttempted and its ReleaseInventory under
// convoy-controller, and the objects themselves; it runs the real HTTP API in-process, which the
// loop's wake-ups POST to) and watches what the loop writes back.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ANNOTATION_SYNC_REQUESTED_AT, API_VERSION, FIELD_MANAGERS } from '../../src/api/constants.ts';
import type {
  InventoryEntry,
  InventoryHook,
  Release,
  ReleaseInventory,
  ReleaseSpec,
  RolloutStatus,
} from '../../src/api/types.ts';
import { applyObject } from '../../src/kube/apply.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { RecordingClient, recordingLogger } from '../../src/observer/client-testsupport.ts';
import { HealthController, installDefaultRules } from '../../src/observer/health/loop/index.ts';
import {
  Harness,
  Informer,
  type KubeObject,
  newLogger,
  observerLeaseName,
  shardOf,
  Transport,
} from '../../src/runtime/index.ts';
import { microTime } from '../../src/runtime/lease.ts';
import { type ApiServer, startApiServer } from '../../src/server/index.ts';
import {
  type ControlPlane,
  type PodStage,
  startControlPlane,
  TEST_FAIL_MESSAGE,
  TEST_STAGE,
} from '../../src/testenv/index.ts';
import { installCrds } from '../support/crds.ts';
import { hostileRules } from '../support/hostile-rules.ts';
import { observerHarness } from '../support/observer-harness.ts';
import { startObserver as startObserverProcess } from '../support/processes.ts';
import {
  applyAppliedRelease,
  applyControllerInventory,
  applyDeployedDeployment,
  nowStamp,
} from '../support/release.ts';
import { applyRuleSet } from '../support/rules.ts';
import { createNamespace, DEFAULT_HEALTH } from '../support/system.ts';
import { type WaitOptions, waitFor, waitForMore } from '../support/wait.ts';

const NS = 'obs';
const LEASE_NS = 'convoy-system';
const A = `sha256:${'a'.repeat(64)}`;

describe('convoy-observer health loop', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let harness: Harness | undefined;
  let hc: HealthController;
  /** The health loop's own client: every request the loop sends, recorded, then sent to the API server. */
  let loopClient: RecordingClient;
  let api: ApiServer;
  let caDir: string;

  const startObserver = async () => {
    harness = observerHarness('observer-test', cp.kubeConfig);
    loopClient = new RecordingClient({ kubeConfig: cp.kubeConfig });
    hc = new HealthController(harness, {
      client: loopClient,
      workers: 4,
      sync: { kind: 'direct', url: api.url, caPem: api.cert },
    });
    await harness.start();
  };

  before(async () => {
    cp = await startControlPlane({ workloads: true, nodes: 2 });
    client = new KubeClient(cp.kubeConfig);
    await installCrds(cp.kubeConfig);
    for (const ns of [NS, LEASE_NS]) await createNamespace(client, ns);
    await installDefaultRules(client);
    api = await startApiServer({ kubeConfig: cp.kubeConfig, tls: { kind: 'selfSigned' } });
    caDir = await mkdtemp(join(tmpdir(), 'convoy-observer-e2e-'));
    await writeFile(join(caDir, 'api-ca.crt'), api.cert);
    await startObserver();
  });

  after(async () => {
    await harness?.stop();
    await api?.close();
    await cp?.stop();
    if (caDir) await rm(caDir, { recursive: true, force: true });
  });

  // --- playing the controller-manager -------------------------------------------------------------

  const applyRelease = (
    name: string,
    spec: Partial<ReleaseSpec>,
    lastAttempted = A,
    ns = NS,
    rollout?: RolloutStatus,
  ) => applyAppliedRelease(client, ns, name, spec, lastAttempted, rollout);
  const applyInventory = (name: string, entries: InventoryEntry[], hooks: InventoryHook[] = [], ns = NS) =>
    applyControllerInventory(client, ns, name, entries, hooks);
  const entry = (kind: string, name: string, extra: Partial<InventoryEntry> = {}): InventoryEntry => ({
    group: kind === 'Deployment' ? 'apps' : '',
    version: 'v1',
    kind,
    namespace: NS,
    name,
    wave: 0,
    renderRef: A,
    ...extra,
  });
  /** A hook of render A armed now, its workload the Job `workloadName`. */
  const jobHook = (
    name: string,
    phase: InventoryHook['phase'],
    workloadName: string,
    extra: Partial<InventoryHook> = {},
  ): InventoryHook => ({
    name,
    phase,
    kind: 'Job',
    renderRef: A,
    workloadName,
    createdAt: nowStamp(),
    ...extra,
  });
  const applyDeployment = (release: string, name: string, stage?: PodStage) =>
    applyDeployedDeployment(client, NS, name, { release, replicas: 1, stage });
  const applyConfigMap = (name: string, labels: Record<string, string> = {}, ns = NS) =>
    applyObject(
      client,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels }, data: { k: 'v' } },
      { fieldManager: FIELD_MANAGERS.deployer, force: true },
    );
  const applyJob = (name: string, stage: PodStage) =>
    applyObject(
      client,
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name, namespace: NS },
        spec: {
          backoffLimit: 0,
          template: {
            metadata: { labels: stage.labels, annotations: stage.annotations },
            spec: {
              restartPolicy: 'Never',
              containers: [{ name: 'main', image: 'registry.invalid/noop:1' }],
            },
          },
        },
      },
      { fieldManager: FIELD_MANAGERS.deployer, force: true },
    );

  const setFinalizers = async (name: string, finalizers: string[]) =>
    client.request({
      method: 'PATCH',
      path: await client.pathOf({ apiVersion: API_VERSION, kind: 'Release', namespace: NS, name }),
      contentType: 'application/merge-patch+json',
      body: { metadata: { finalizers } },
    });
  const getRelease = (name: string, ns = NS) =>
    client.get<Release>({ apiVersion: API_VERSION, kind: 'Release', namespace: ns, name });
  const getInventory = (name: string, ns = NS) =>
    client.get<ReleaseInventory>({ apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace: ns, name });
  const healthy = (r: Release | undefined) => r?.status?.conditions?.find((c) => c.type === 'Healthy');
  const entryState = async (release: string, name: string) =>
    (await getInventory(release))?.entries?.find((e) => e.name === name);
  const hookState = async (release: string, name: string) =>
    (await getInventory(release))?.hooks?.find((h) => h.name === name);
  /** Waits until entry `name` of `release`'s inventory is in `state`, and returns it. */
  const entryIn = (release: string, name: string, state: InventoryEntry['state'], opts?: WaitOptions) =>
    waitFor(
      `${release}: ${name} ${state}`,
      async () => {
        const e = await entryState(release, name);
        return e?.state === state && e;
      },
      opts,
    );
  /** Waits until hook `name` of `release`'s inventory is in `state`, and returns it. */
  const hookIn = (release: string, name: string, state: InventoryHook['state'], opts?: WaitOptions) =>
    waitFor(
      `${release}: hook ${name} ${state}`,
      async () => {
        const h = await hookState(release, name);
        return h?.state === state && h;
      },
      opts,
    );
  const deleteRelease = async (name: string, ns = NS) => {
    await client.delete({ apiVersion: API_VERSION, kind: 'Release', namespace: ns, name });
    await client.delete({ apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace: ns, name });
  };

  /** Counts changes of sync-requested-at on one Release, from the value it has now. */
  const countSyncRequests = async (name: string) => {
    const inf = new Informer(new Transport(cp.kubeConfig), {
      path: `/apis/${API_VERSION}/namespaces/${NS}/releases`,
      fieldSelector: `metadata.name=${name}`,
    });
    let changes = 0;
    inf.addHandlers({
      update: (o, n) => {
        if (
          o.metadata?.annotations?.[ANNOTATION_SYNC_REQUESTED_AT] !==
          n.metadata?.annotations?.[ANNOTATION_SYNC_REQUESTED_AT]
        )
          changes++;
      },
    });
    inf.start();
    await inf.waitForSync();
    return { count: () => changes, stop: () => inf.stop() };
  };

  const waitPasses = (key: string, n: number) =>
    waitForMore(`passes of ${key}`, () => hc.passesOf(key), n, { timeoutMs: 30_000 });

  // --- tests ------------------------------------------------------------------------------------------

  it('a Deployment goes Progressing → Healthy; its inventory writes wake the controller, so no sync is sent; a steady pass writes nothing', async () => {
    await applyDeployment('web', 'web', TEST_STAGE.readyAfter('6s'));
    await applyRelease('web', { healthAssessment: DEFAULT_HEALTH, syncPolicy: { interval: '1s' } });
    const syncs = await countSyncRequests('web');
    try {
      await applyInventory('web', [entry('Deployment', 'web')]);
      // First pass: the render advanced; the object is not ready yet.
      const progressing = await entryIn('web', 'web', 'Progressing', { timeoutMs: 20_000 });
      assert.equal(progressing.assessedRenderRef, A);
      assert.ok(progressing.firstUnhealthy, 'a failing object gets an anchor');
      // The entries are written before the status, which may also wait up to 500 ms for the other loop's
      // part (docs/design.md#observer-status): until it lands the Release still reads Pending.
      const first = await waitFor(
        'web Healthy=Unknown Progressing',
        async () => {
          const rel = await getRelease('web');
          return healthy(rel)?.reason !== 'Pending' && rel;
        },
        { timeoutMs: 20_000 },
      );
      assert.equal(healthy(first)?.status, 'Unknown');
      assert.equal(healthy(first)?.reason, 'Progressing');
      const r = await waitFor(
        'web Healthy',
        async () => {
          const rel = await getRelease('web');
          return healthy(rel)?.status === 'True' && rel;
        },
        { timeoutMs: 40_000 },
      );
      assert.equal(healthy(r)?.reason, 'Healthy');
      assert.deepEqual(r.status?.healthSummary, {
        healthy: 1,
        progressing: 0,
        degraded: 0,
        unknown: 0,
        total: 1,
      });
      const e = await entryState('web', 'web');
      assert.equal(e?.state, 'Healthy');
      assert.equal(e?.firstUnhealthy, undefined, 'a pass clears the anchor');

      // Steady state: several passes, no write and no sync.
      await waitPasses(`${NS}/web`, 1);
      const rvRelease = (await getRelease('web'))?.metadata.resourceVersion;
      const rvInventory = (await getInventory('web'))?.metadata.resourceVersion;
      const writes = hc.stats.writes;
      await waitPasses(`${NS}/web`, 4);
      assert.equal(hc.stats.writes, writes, 'no write request at all during steady passes');
      assert.equal(
        (await getRelease('web'))?.metadata.resourceVersion,
        rvRelease,
        'Release unchanged by steady passes',
      );
      assert.equal(
        (await getInventory('web'))?.metadata.resourceVersion,
        rvInventory,
        'inventory unchanged by steady passes',
      );
      // The render advancing and the wave completing each changed an entry's state or assessedRenderRef:
      // the controller's inventory watch wakes it for those (docs/design.md#controller-wake-ups).
      assert.equal(syncs.count(), 0, 'no sync: every edge was carried by an inventory write');
    } finally {
      await syncs.stop();
    }
    await deleteRelease('web');
  });

  it('under a Failed rollout, which the inventory watch does not wake, the render advancing and the wave completing each send one sync', async () => {
    await applyDeployment('failed', 'failed', TEST_STAGE.readyAfter('6s'));
    await applyRelease(
      'failed',
      { healthAssessment: DEFAULT_HEALTH, failurePolicy: { deadline: '1m' }, syncPolicy: { interval: '1s' } },
      A,
      NS,
      { state: 'Failed', renderRef: A, reason: 'DeadlineExceeded' },
    );
    const syncs = await countSyncRequests('failed');
    try {
      await applyInventory('failed', [entry('Deployment', 'failed')]);
      await entryIn('failed', 'failed', 'Progressing', { timeoutMs: 20_000 });
      await waitFor('the render-advanced sync', async () => syncs.count() === 1, { timeoutMs: 20_000 });
      await entryIn('failed', 'failed', 'Healthy', { timeoutMs: 40_000 });
      await waitFor('the wave-complete sync', async () => syncs.count() === 2, { timeoutMs: 20_000 });
      await waitPasses(`${NS}/failed`, 3);
      assert.equal(syncs.count(), 2, 'exactly one sync per edge, none for steady passes');
    } finally {
      await syncs.stop();
    }
    await deleteRelease('failed');
  });

  it('a never-ready Deployment goes Progressing → Degraded when healthAssessment.deadline passes', async () => {
    await applyDeployment('stuck', 'stuck', TEST_STAGE.neverReady);
    await applyRelease('stuck', { healthAssessment: { ...DEFAULT_HEALTH, deadline: '4s' } });
    await applyInventory('stuck', [entry('Deployment', 'stuck')]);
    const first = await entryIn('stuck', 'stuck', 'Progressing');
    const anchor = Date.parse(first.firstUnhealthy ?? '');
    const degraded = await entryIn('stuck', 'stuck', 'Degraded', { timeoutMs: 30_000, intervalMs: 200 });
    const seenAt = Date.now();
    assert.equal(degraded.firstUnhealthy, first.firstUnhealthy, 'the anchor does not move');
    assert.ok(seenAt - anchor >= 4000, 'not Degraded before the deadline');
    // Passes at ~0, 2, 6, 14 s from the anchor (2ⁿ s + up to 20 %): Degraded by the pass after 4 s.
    assert.ok(
      seenAt - anchor <= 4000 + 8 * 1200 + 2000,
      `Degraded within one backoff step (took ${seenAt - anchor} ms)`,
    );
    // The same pass writes the inventory entry, then the Release status (docs/design.md#one-health-pass): the
    // second may land a moment after the entry was read.
    const r = await waitFor(
      'Healthy=False Degraded on the Release',
      async () => {
        const x = await getRelease('stuck');
        return healthy(x)?.status === 'False' && x;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    assert.equal(healthy(r)?.reason, 'Degraded');
    await deleteRelease('stuck');
  });

  it('a rule that does not compile gives Healthy=Unknown naming rule set, rule and position', async () => {
    await applyRuleSet(client, NS, 'broken', [
      { name: 'bad-cel', match: { group: '', kinds: ['ConfigMap'] }, healthy: 'object.data.k ==' },
    ]);
    await applyConfigMap('cfg-broken');
    await applyRelease('broken', {
      healthAssessment: { localRuleSetSelector: { matchLabels: { rules: 'broken' } } },
    });
    await applyInventory('broken', [entry('ConfigMap', 'cfg-broken')]);
    const c = await waitFor('broken Healthy=Unknown', async () => {
      const cond = healthy(await getRelease('broken'));
      return cond?.reason === 'Unknown' && cond;
    });
    assert.equal(c.status, 'Unknown');
    assert.match(c.message, /rule set obs\/broken/);
    assert.match(c.message, /rule bad-cel/);
    assert.match(c.message, /column \d+/);
    assert.equal((await entryState('broken', 'cfg-broken'))?.state, undefined, 'nothing assessed');
    await deleteRelease('broken');
  });

  it('an evaluation error gives Unknown for that entry only; a deleted object gives "not found"', async () => {
    await applyRuleSet(client, NS, 'eval', [
      {
        name: 'needs-key',
        match: { group: '', kinds: ['ConfigMap'], selector: { matchLabels: { probe: 'error' } } },
        healthy: "object.data.missing == 'x'",
      },
    ]);
    await applyConfigMap('cfg-error', { probe: 'error' });
    await applyConfigMap('cfg-fine');
    await applyConfigMap('cfg-gone');
    // interval 1s caps the recheck delay: deleting a live object wakes nothing but the timer.
    await applyRelease('mixed', {
      healthAssessment: { localRuleSetSelector: { matchLabels: { rules: 'eval' } } },
      syncPolicy: { interval: '1s' },
    });
    await applyInventory('mixed', [
      entry('ConfigMap', 'cfg-error'),
      entry('ConfigMap', 'cfg-fine'),
      entry('ConfigMap', 'cfg-gone'),
    ]);
    const inv = await waitFor('mixed assessed', async () => {
      const i = await getInventory('mixed');
      return i?.entries?.every((e) => e.state !== undefined) && i;
    });
    const by = new Map(inv.entries?.map((e) => [e.name, e]));
    assert.equal(by.get('cfg-error')?.state, 'Unknown');
    assert.match(by.get('cfg-error')?.message ?? '', /needs-key/);
    assert.equal(by.get('cfg-error')?.firstUnhealthy, undefined);
    assert.equal(by.get('cfg-fine')?.state, 'Healthy');
    assert.equal(by.get('cfg-gone')?.state, 'Healthy');
    const cond = healthy(await getRelease('mixed'));
    assert.equal(cond?.status, 'Unknown');
    assert.equal(cond?.reason, 'Progressing');

    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'cfg-gone' });
    const gone = await entryIn('mixed', 'cfg-gone', 'Progressing');
    assert.equal(gone.message, 'not found');
    assert.ok(gone.firstUnhealthy);
    assert.equal((await entryState('mixed', 'cfg-fine'))?.state, 'Healthy');
    await deleteRelease('mixed');
  });

  it('a tenant rule set with hostile rules: its objects read Unknown "exceeded its budget", another namespace stays Healthy', async () => {
    const TENANT = 'obs-tenant';
    await createNamespace(client, TENANT);
    const picked = hostileRules.slice(0, 3); // the three rules of the finding, as the schema admits them
    await applyRuleSet(
      client,
      TENANT,
      'hostile',
      picked.map(([, healthy], i) => ({
        name: `hostile-${i}`,
        match: { group: '', kinds: ['ConfigMap'], selector: { matchLabels: { probe: String(i) } } },
        healthy,
      })),
    );
    for (const i of picked.keys()) await applyConfigMap(`cfg-hostile-${i}`, { probe: String(i) }, TENANT);
    await applyRelease(
      'hostile',
      {
        healthAssessment: { localRuleSetSelector: { matchLabels: { rules: 'hostile' } } },
        syncPolicy: { interval: '1s' },
      },
      A,
      TENANT,
    );
    await applyInventory(
      'hostile',
      [...picked.keys()].map((i) => entry('ConfigMap', `cfg-hostile-${i}`, { namespace: TENANT })),
      [],
      TENANT,
    );
    await applyConfigMap('cfg-neighbour');
    await applyRelease('neighbour', { healthAssessment: DEFAULT_HEALTH, syncPolicy: { interval: '1s' } });
    await applyInventory('neighbour', [entry('ConfigMap', 'cfg-neighbour')]);

    const inv = await waitFor('hostile Release assessed', async () => {
      const i = await getInventory('hostile', TENANT);
      return i?.entries?.every((e) => e.state !== undefined) && i;
    });
    for (const [i, e] of (inv.entries ?? []).entries()) {
      assert.equal(e.state, 'Unknown', e.name);
      assert.match(
        e.message ?? '',
        new RegExp(`^rule ${TENANT}/hostile/hostile-${i} exceeded its budget \\(healthy: `),
      );
    }
    // The Release's condition is written after the inventory's entries: wait for it, not only for them.
    const cond = await waitFor('hostile Release condition names the budget', async () => {
      const c = healthy(await getRelease('hostile', TENANT));
      return /exceeded its budget/.test(c?.message ?? '') && c;
    });
    assert.equal(cond?.status, 'Unknown');

    // The neighbour is Healthy and keeps being assessed while the hostile Release is re-assessed every second.
    await waitFor('neighbour Healthy', async () => healthy(await getRelease('neighbour'))?.status === 'True');
    await waitPasses(`${TENANT}/hostile`, 3);
    await waitPasses(`${NS}/neighbour`, 3);
    assert.equal(healthy(await getRelease('neighbour'))?.status, 'True');
    assert.equal((await entryState('neighbour', 'cfg-neighbour'))?.state, 'Healthy');
    await deleteRelease('hostile', TENANT);
    await deleteRelease('neighbour');
  });

  it('hooks: Running → Succeeded, a failing Job → Failed, a hung one → Failed at its timeout, a re-armed one is polled again', async () => {
    const created = nowStamp();
    const hook = (name: string, timeout = '5m', extra: Partial<InventoryHook> = {}): InventoryHook => ({
      name,
      phase: 'PreSync',
      kind: 'Job',
      renderRef: A,
      workloadName: `${name}-a`,
      createdAt: created,
      timeout,
      ...extra,
    });
    await applyJob('ok-a', TEST_STAGE.readyAfter('5s'));
    await applyJob('fail-a', TEST_STAGE.fail);
    await applyJob('hung-a', TEST_STAGE.neverReady);
    await applyRelease('hooks', {});
    await applyInventory('hooks', [], [hook('ok'), hook('fail'), hook('hung', '4s')]);

    const cond = await waitFor('NotConfigured', async () => healthy(await getRelease('hooks')));
    assert.equal(cond.status, 'True');
    assert.equal(cond.reason, 'NotConfigured');
    const running = await waitFor('ok Running', async () => {
      const h = await hookState('hooks', 'ok');
      return h?.state !== undefined && h;
    });
    assert.equal(running.state, 'Running');
    assert.equal(running.finishedAt, undefined);
    const ok = await hookIn('hooks', 'ok', 'Succeeded', { timeoutMs: 40_000 });
    assert.ok(Date.parse(ok.finishedAt ?? '') >= Date.parse(created));
    const failed = await hookIn('hooks', 'fail', 'Failed');
    assert.match(failed.message ?? '', /BackoffLimitExceeded|backoff limit|exited/);
    const hung = await hookIn('hooks', 'hung', 'Failed', { timeoutMs: 40_000 });
    assert.equal(hung.reason, 'Timeout');
    assert.ok(Date.parse(hung.finishedAt ?? '') - Date.parse(created) >= 4000);

    // Re-arm "ok" as the controller would: a new workload, createdAt after finishedAt.
    const rearmedAt = `${new Date(Date.parse(ok.finishedAt ?? '') + 2000).toISOString().slice(0, 19)}Z`;
    await applyJob('ok-b', TEST_STAGE.fail);
    await applyInventory(
      'hooks',
      [],
      [hook('ok', '5m', { workloadName: 'ok-b', createdAt: rearmedAt }), hook('fail'), hook('hung', '4s')],
    );
    const again = await hookIn('hooks', 'ok', 'Failed', { timeoutMs: 40_000 });
    assert.ok(Date.parse(again.finishedAt ?? '') >= Date.parse(rearmedAt));
    assert.match(again.message ?? '', new RegExp(`${TEST_FAIL_MESSAGE.slice(0, 10)}|backoff limit`, 'i'));
    await deleteRelease('hooks');
  });

  it('deletion: only hooks are polled, a finished hook sends a sync, Healthy is not written, then nothing is written', async () => {
    await applyConfigMap('del-cfg');
    await applyRelease('del', { healthAssessment: DEFAULT_HEALTH, syncPolicy: { interval: '1s' } });
    await setFinalizers('del', ['convoy.kumodo.io/finalizer']);
    await applyInventory('del', [entry('ConfigMap', 'del-cfg')]);
    await waitFor('del Healthy with its one object', async () => {
      const r = await getRelease('del');
      return healthy(r)?.status === 'True' && r?.status?.healthSummary?.healthy === 1;
    });
    const before = healthy(await getRelease('del'));

    await client.delete({ apiVersion: API_VERSION, kind: 'Release', namespace: NS, name: 'del' });
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'del-cfg' });
    await applyJob('predelete-a', TEST_STAGE.readyAfter('3s'));
    const syncs = await countSyncRequests('del');
    try {
      await applyInventory(
        'del',
        [entry('ConfigMap', 'del-cfg')],
        [jobHook('predelete', 'PreDelete', 'predelete-a', { timeout: '5m' })],
      );
      await hookIn('del', 'predelete', 'Succeeded', { timeoutMs: 30_000 });
      await waitFor('a sync for the finished hook', async () => syncs.count() >= 1);
      const rv = (await getInventory('del'))?.metadata.resourceVersion;
      await waitPasses(`${NS}/del`, 3);
      assert.equal(
        (await getInventory('del'))?.metadata.resourceVersion,
        rv,
        'nothing written once every hook has finishedAt',
      );
      assert.equal(syncs.count(), 1, 'one sync for the finished hook');
      assert.deepEqual(healthy(await getRelease('del')), before, 'Healthy not written while deleting');
      assert.equal(
        (await entryState('del', 'del-cfg'))?.state,
        'Healthy',
        'objects are not assessed while deleting',
      );
    } finally {
      await syncs.stop();
    }
    await setFinalizers('del', []);
    await client.delete({ apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace: NS, name: 'del' });
  });

  /** The loop's informers (the harness shares one per path): what a pass reads as "from the cache". */
  const cached = () => {
    if (harness === undefined) throw new Error('the in-process observer is not running');
    return {
      releases: harness.informer<Release & KubeObject>({ path: `/apis/${API_VERSION}/releases` }),
      inventories: harness.informer<ReleaseInventory & KubeObject>({
        path: `/apis/${API_VERSION}/releaseinventories`,
      }),
    };
  };

  /** The requests the loop sent about objects named `name` (a Release, its inventory, a workload). */
  const requestsAbout = (name: string) =>
    loopClient.requests.filter((r) => r.path.split('?')[0]?.split('/').includes(name));

  it('H14/H35 "It reads the Release from the cache", "It reads the ReleaseInventory from the cache": no GET of either', async () => {
    await applyConfigMap('cached-cfg');
    await applyRelease('cached', { healthAssessment: DEFAULT_HEALTH });
    await applyInventory('cached', [entry('ConfigMap', 'cached-cfg')]);
    await waitFor('cached Healthy', async () => healthy(await getRelease('cached'))?.status === 'True');
    const sent = requestsAbout('cached');
    assert.ok(
      sent.some((r) => r.method === 'PATCH' && r.path.includes('/releaseinventories/cached')),
      `the recording holds the loop's inventory write: ${JSON.stringify(sent)}`,
    );
    assert.deepEqual(
      sent.filter((r) => r.method === 'GET'),
      [],
      'the Release and its inventory come from the informer caches',
    );
    await deleteRelease('cached');
  });

  it('H15 "If the Release does not exist, it returns": a pass over an inventory without its Release sends nothing', async () => {
    await applyJob('orphan-hook-a', TEST_STAGE.neverReady);
    await applyInventory(
      'orphan',
      [entry('ConfigMap', 'orphan-cfg')],
      [jobHook('orphan-hook', 'PreSync', 'orphan-hook-a')],
    );
    // In the loop's cache, with a hook due: a pass that went on would poll it.
    await waitFor('orphan cached', async () => cached().inventories.cache.get(`${NS}/orphan`));
    const { log } = recordingLogger();
    assert.deepEqual(await hc.syncHandler(`${NS}/orphan`, log), { kind: 'done' });
    assert.deepEqual(
      [...requestsAbout('orphan'), ...requestsAbout('orphan-cfg'), ...requestsAbout('orphan-hook-a')],
      [],
      'no hook polled, no object read, nothing written',
    );
    assert.equal((await hookState('orphan', 'orphan-hook'))?.state, undefined);
    await client.delete({ apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace: NS, name: 'orphan' });
  });

  it('H28 "an object gets an assessment as soon as the controller records it after the apply of its wave": before later waves', async () => {
    await applyConfigMap('waves-0');
    await applyRelease('waves', { healthAssessment: DEFAULT_HEALTH });
    // As the controller leaves it between waves: wave 0 applied and recorded, wave 1 noted as pending.
    const recordWaves = (entries: InventoryEntry[], pending: InventoryEntry[]) =>
      applyObject(
        client,
        {
          apiVersion: API_VERSION,
          kind: 'ReleaseInventory',
          metadata: { name: 'waves', namespace: NS },
          entries,
          pending: pending.map(({ group, kind, namespace, name, version, wave, renderRef }) => ({
            group,
            kind,
            namespace,
            name,
            version,
            wave,
            renderRef,
          })),
        },
        { fieldManager: FIELD_MANAGERS.controller, force: true },
      );
    const wave0 = entry('ConfigMap', 'waves-0', { wave: 0 });
    const wave1 = entry('ConfigMap', 'waves-1', { wave: 1 });
    await recordWaves([wave0], [wave1]);
    const first = await entryIn('waves', 'waves-0', 'Healthy', { timeoutMs: 20_000 });
    assert.equal(first.assessedRenderRef, A);
    const inv = await getInventory('waves');
    assert.deepEqual(
      inv?.entries?.map((e) => e.name),
      ['waves-0'],
      'assessed while wave 1 is neither applied nor recorded',
    );
    assert.equal(
      await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'waves-1' }),
      undefined,
    );
    // Wave 1 applied and recorded: assessed in turn, without any other event.
    await applyConfigMap('waves-1');
    await recordWaves([wave0, wave1], []);
    const second = await entryIn('waves', 'waves-1', 'Healthy', { timeoutMs: 20_000 });
    assert.equal(second.assessedRenderRef, A);
    await deleteRelease('waves');
  });

  it('H110 "scheduleHealthRecheck uses only the running hooks as pending targets" while deleting', async () => {
    await applyDeployment('h110', 'h110', TEST_STAGE.neverReady);
    await applyRelease('h110', { healthAssessment: DEFAULT_HEALTH });
    await setFinalizers('h110', ['convoy.kumodo.io/finalizer']);
    await applyJob('h110-pre-a', TEST_STAGE.neverReady);
    await applyInventory('h110', [entry('Deployment', 'h110')]);
    await entryIn('h110', 'h110', 'Progressing', { timeoutMs: 20_000 });
    await client.delete({ apiVersion: API_VERSION, kind: 'Release', namespace: NS, name: 'h110' });
    await waitFor('h110 deleting in the cache', async () => {
      return cached().releases.cache.get(`${NS}/h110`)?.metadata.deletionTimestamp;
    });
    await applyInventory('h110', [entry('Deployment', 'h110')], [jobHook('pre', 'PreDelete', 'h110-pre-a')]);
    const hookInCache = (state: InventoryHook['state']) =>
      waitFor(`h110 hook ${state} in the cache`, async () => {
        const h = cached()
          .inventories.cache.get(`${NS}/h110`)
          ?.hooks?.find((x) => x.name === 'pre');
        return h?.state === state && h;
      });
    // Read from the cache, as the passes below read it: they have nothing of their own to write.
    await hookInCache('Running');
    const { log } = recordingLogger();
    const key = `${NS}/h110`;
    // The hook runs: it is a pending target, so the pass is rechecked (2 s or more; a 409 would be 500 ms).
    const running = await hc.syncHandler(key, log);
    assert.equal(running.kind, 'requeueAfter', JSON.stringify(running));
    assert.ok(running.kind === 'requeueAfter' && running.ms >= 2000, JSON.stringify(running));
    // The hook's workload is gone: it fails, and with no running hook nothing is pending, though the
    // Deployment is still Progressing (no interval: no timed pass at all).
    await client.delete({ apiVersion: 'batch/v1', kind: 'Job', namespace: NS, name: 'h110-pre-a' });
    await hookInCache('Failed');
    assert.deepEqual(await hc.syncHandler(key, log), { kind: 'done' });
    assert.equal((await entryState('h110', 'h110'))?.state, 'Progressing', 'objects are not pending targets');
    await setFinalizers('h110', []);
    await client.delete({ apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace: NS, name: 'h110' });
  });

  it('H17 "If this replica does not own the shard of the target Cluster, it returns": only its shards are passed', async () => {
    // A second observer replica, of two shards, in Lease namespace h17; shard 1 is held by another live
    // replica for the length of the test, so this one can hold shard 0 only.
    const leases = 'h17';
    await createNamespace(client, leases);
    await applyObject(
      client,
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: observerLeaseName(1), namespace: leases },
        spec: {
          holderIdentity: 'another-observer',
          leaseDurationSeconds: 3600,
          renewTime: microTime(Date.now()),
        },
      },
      { fieldManager: 'convoy-test', force: true },
    );
    const mine = `${NS}/h17-mine`;
    const other = `${NS}/h17-other`;
    for (const [name, cluster] of [
      ['h17-other', 'h17-c1'],
      ['h17-mine', 'h17-c0'],
    ] as const) {
      await applyObject(
        client,
        { apiVersion: API_VERSION, kind: 'Cluster', metadata: { name: cluster, namespace: NS }, spec: {} },
        { fieldManager: 'convoy-test', force: true },
      );
      await applyRelease(name, { cluster: { name: cluster } });
    }
    const shardOfCluster = (name: string) => shardOf({ kind: 'cluster', namespace: NS, name }, 2);
    assert.deepEqual([shardOfCluster('h17-c0'), shardOfCluster('h17-c1')], [0, 1]);
    // The other Releases of NS (no Cluster) are on shard 1 too: the replica's queue goes idle.
    assert.equal(shardOf({ kind: 'namespace', namespace: NS }, 2), 1);

    const second = new Harness({
      name: 'observer-h17',
      kubeConfig: cp.kubeConfig,
      log: newLogger('observer-h17', undefined, 'warn'),
      shards: {
        count: 2,
        namespace: leases,
        role: 'observer',
        identity: 'h17',
        leaseDurationSeconds: 5,
        retryMs: 300,
      },
    });
    const secondClient = new RecordingClient({ kubeConfig: cp.kubeConfig });
    const replica = new HealthController(second, {
      client: secondClient,
      workers: 2,
      sync: { kind: 'direct', url: api.url, caPem: api.cert },
    });
    await second.start();
    try {
      await waitFor('shard 0 held', async () => second.heldShards().includes(0));
      await waitFor('a pass of the Release on shard 0', async () => replica.passesOf(mine) > 0);
      // Queued again: worked off the queue, but the gate returns before the handler.
      replica.controller.queue.add(other);
      await waitFor(
        'the queue worked off',
        async () => replica.controller.queue.len() === 0 && replica.controller.queue.processingCount() === 0,
      );
      assert.deepEqual(second.heldShards(), [0]);
      assert.equal(replica.passesOf(other), 0, 'no pass of the Release on shard 1');
      assert.deepEqual(
        secondClient.requests.filter((r) => r.path.split('?')[0]?.split('/').includes('h17-other')),
        [],
      );
      await waitFor('the replica holding every shard passes it', async () => hc.passesOf(other) > 0);
    } finally {
      await second.stop();
    }
    for (const name of ['h17-mine', 'h17-other']) await deleteRelease(name);
  });

  it('restarting the observer (child process) keeps firstUnhealthy', async () => {
    await harness?.stop();
    harness = undefined;
    await applyDeployment('restart', 'restart', TEST_STAGE.neverReady);
    await applyConfigMap('restart-cfg');
    await applyRelease('restart', { healthAssessment: DEFAULT_HEALTH });
    await applyInventory('restart', [entry('Deployment', 'restart')]);

    // Wake-ups go to the in-process API this test runs in place of the controller-manager's.
    const spawnObserver = () =>
      startObserverProcess({
        kubeconfigPath: cp.kubeconfigPath,
        leaseNamespace: LEASE_NS,
        wakeups: { kind: 'direct', url: api.url, caFile: join(caDir, 'api-ca.crt') },
      });

    let child = await spawnObserver();
    try {
      const first = await entryIn('restart', 'restart', 'Progressing', { timeoutMs: 30_000 });
      await child.stop();
      child = await spawnObserver();
      // A controller-owned change wakes the new process; its pass assesses the new entry.
      await applyInventory('restart', [entry('Deployment', 'restart'), entry('ConfigMap', 'restart-cfg')]);
      await entryIn('restart', 'restart-cfg', 'Healthy', { timeoutMs: 30_000 });
      const e = await entryState('restart', 'restart');
      assert.equal(e?.state, 'Progressing');
      assert.equal(e?.firstUnhealthy, first.firstUnhealthy, 'the anchor survives the restart');
    } finally {
      await child.stop();
    }
  });
});
