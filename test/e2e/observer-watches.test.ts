// The observer's watched reads on the real control plane (docs/design.md#watched-reads): the health loop
// with TargetWatches, the test playing the controller-manager (it applies the Release, its
// status.lastAttempted, its ReleaseInventory and the objects). A watch event wakes the Release at once,
// a steady pass reads nothing from the API, a deleted object reads "not found", the cache holds no
// managedFields, and a kind the observer may not list falls back to reads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_VERSION, FIELD_MANAGERS, LABEL_RELEASE } from '../../src/api/constants.ts';
import { inventoryEntry } from '../../src/api/testsupport.ts';
import type { InventoryEntry, Release, ReleaseInventory } from '../../src/api/types.ts';
import { impersonating } from '../../src/controller/cluster/access.ts';
import { applyObject } from '../../src/kube/apply.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { HealthController, installDefaultRules } from '../../src/observer/health/loop/index.ts';
import { TargetWatches } from '../../src/observer/target-watches.ts';
import type { Harness } from '../../src/runtime/index.ts';
import { useCrdCluster } from '../support/cluster.ts';
import { observerHarness } from '../support/observer-harness.ts';
import { bindRole, waitForAccess } from '../support/rbac.ts';
import { applyAppliedRelease, applyControllerInventory, nowStamp } from '../support/release.ts';
import { DEFAULT_HEALTH, LEASE_NS } from '../support/system.ts';
import { waitFor, waitForMore } from '../support/wait.ts';

const NS = 'watched';
const A = `sha256:${'a'.repeat(64)}`;

describe('observer watched reads', () => {
  let harness: Harness;
  let hc: HealthController;
  let watches: TargetWatches;
  const { cp, client } = useCrdCluster(
    { namespaces: [NS, LEASE_NS] },
    {
      // The views cp and client throughout: the tests hand `client` to watches, which know clients by identity.
      setUp: async () => {
        // No kube-controller-manager here to make it, and pod admission wants it.
        await client.create({
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: 'default', namespace: NS },
        });
        await installDefaultRules(client);
        harness = observerHarness('observer-watches-test', cp.kubeConfig);
        watches = new TargetWatches({ registry: harness.metrics.registry, log: harness.log });
        harness.onStop(() => watches.stop());
        // Wake-ups go nowhere: no controller runs here (the annotation mode patches the Release).
        hc = new HealthController(harness, { client, workers: 2, sync: { kind: 'annotation' }, watches });
        await harness.start();
      },
      tearDown: async () => harness?.stop(),
    },
  );

  const applyRelease = (name: string) =>
    applyAppliedRelease(client, NS, name, { healthAssessment: DEFAULT_HEALTH }, A);
  const applyInventory = (name: string, entries: InventoryEntry[]) =>
    applyControllerInventory(client, NS, name, entries);
  const entry = (kind: string, name: string) =>
    inventoryEntry({ version: 'v1', kind, namespace: NS, name, wave: 0, renderRef: A });
  const labels = (release: string) => ({ [LABEL_RELEASE]: `${NS}.${release}` });
  const healthy = async (name: string) =>
    (
      await client.get<Release>({ apiVersion: API_VERSION, kind: 'Release', namespace: NS, name })
    )?.status?.conditions?.find((c) => c.type === 'Healthy');
  const entryOf = async (release: string, name: string) =>
    (
      await client.get<ReleaseInventory>({
        apiVersion: API_VERSION,
        kind: 'ReleaseInventory',
        namespace: NS,
        name: release,
      })
    )?.entries?.find((e) => e.name === name);
  const waitPasses = (key: string, n: number) =>
    waitForMore(`passes of ${key}`, () => hc.passesOf(key), n, { timeoutMs: 30_000 });

  /** A Pod labelled for `release`, never scheduled (no scheduler of that name): only the test writes its status. */
  const applyPod = async (name: string, release: string) =>
    (
      (
        await applyObject(
          client,
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name, namespace: NS, labels: labels(release) },
            spec: {
              schedulerName: 'nobody',
              containers: [{ name: 'main', image: 'registry.invalid/noop:1' }],
            },
          },
          { fieldManager: FIELD_MANAGERS.deployer, force: true },
        )
      ).metadata as { resourceVersion?: string }
    ).resourceVersion as string;

  it('a pod turning Ready makes its Release Healthy at once, read from the cache', async () => {
    await applyPod('web', 'pod');
    await applyRelease('pod');
    await applyInventory('pod', [entry('Pod', 'web')]);
    const key = `${NS}/pod`;
    await waitFor('Progressing', async () => (await healthy('pod'))?.reason === 'Progressing', {
      timeoutMs: 30_000,
    });
    // Until a recheck came 4 s after the one before (2ⁿ s backoff): the next one is 8 s or more away.
    let seen = hc.passesOf(key);
    let seenAt = Date.now();
    await waitFor(
      'a recheck 4 s after the previous pass',
      async () => {
        const n = hc.passesOf(key);
        if (n === seen) return false;
        const gap = Date.now() - seenAt;
        [seen, seenAt] = [n, Date.now()];
        return gap >= 3500;
      },
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    const readsBefore = hc.stats.reads;
    const flipped = Date.now();
    await client.request({
      method: 'PATCH',
      path: `/api/v1/namespaces/${NS}/pods/web/status`,
      contentType: 'application/merge-patch+json',
      body: {
        status: {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: nowStamp() }],
        },
      },
    });
    await waitFor('Healthy', async () => (await healthy('pod'))?.status === 'True', { timeoutMs: 30_000 });
    const ms = Date.now() - flipped;
    assert.ok(
      ms < 3000,
      `Healthy ${ms} ms after the pod turned Ready: the recheck brought it, not the watch`,
    );
    assert.equal(hc.stats.reads, readsBefore, 'the passes after the first read their object from the cache');
    assert.deepEqual(watches.watching(), ['v1 Pod']);
  });

  it("an entry recorded with its apply's resourceVersion is read from the cache on its first pass", async () => {
    // As the controller records it: the version its apply returned beside the renderRef. The Pod watch
    // runs (the Release of the test before reads Pods), so once it holds that version no GET is needed.
    const rv = await applyPod('web-rv', 'pod-rv');
    await waitFor(
      'the watch caching the applied version',
      async () => watches.cachedObject(client, 'v1', 'Pod', `${NS}/web-rv`)?.metadata?.resourceVersion === rv,
      { timeoutMs: 30_000 },
    );
    const readsBefore = hc.stats.reads;
    await applyRelease('pod-rv');
    await applyInventory('pod-rv', [{ ...entry('Pod', 'web-rv'), appliedResourceVersion: rv }]);
    await waitFor('Progressing', async () => (await healthy('pod-rv'))?.reason === 'Progressing', {
      timeoutMs: 30_000,
    });
    assert.equal(hc.stats.reads, readsBefore, 'no read from the API: the recorded version is the floor');
  });

  it('the cache holds no managedFields and no last-applied annotation', async () => {
    await applyObject(
      client,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'stripped',
          namespace: NS,
          labels: labels('cm'),
          annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"big":"copy"}', keep: 'me' },
        },
        data: { k: 'v' },
      },
      { fieldManager: FIELD_MANAGERS.deployer, force: true },
    );
    await applyRelease('cm');
    await applyInventory('cm', [entry('ConfigMap', 'stripped')]);
    await waitFor('Healthy', async () => (await healthy('cm'))?.status === 'True', { timeoutMs: 30_000 });
    const cached = await waitFor(
      'cached ConfigMap',
      async () => watches.cachedObject(client, 'v1', 'ConfigMap', `${NS}/stripped`),
      { timeoutMs: 30_000 },
    );
    assert.equal(cached.metadata?.managedFields, undefined);
    assert.deepEqual(cached.metadata?.annotations, { keep: 'me' });
    assert.equal(cached.kind, 'ConfigMap');
  });

  it('a deleted watched object reads "not found", woken by its watch', async () => {
    const key = `${NS}/cm`;
    await waitPasses(key, 1);
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'stripped' });
    await waitFor(
      'entry not found',
      async () => (await entryOf('cm', 'stripped'))?.message?.includes('not found') === true,
      { timeoutMs: 30_000 },
    );
    // The entry and the Release's condition are two writes (inventory first): wait for the second.
    await waitFor('Healthy Unknown', async () => (await healthy('cm'))?.status === 'Unknown', {
      timeoutMs: 30_000,
    });
  });

  it('a kind the observer may not list falls back to reads from the API, counted', async () => {
    const user = 'convoy-test-getter';
    await bindRole(
      client,
      NS,
      'secret-getter',
      [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
      [{ kind: 'User', name: user }],
    );
    await waitForAccess(client, 'get secrets', {
      user,
      resourceAttributes: { namespace: NS, verb: 'get', group: '', resource: 'secrets' },
    });
    await applyObject(
      client,
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: NS, labels: labels('s') } },
      { fieldManager: FIELD_MANAGERS.deployer, force: true },
    );
    const getter = new KubeClient(impersonating(cp.kubeConfig, user));
    const read = watches.readerOf('test', `${NS}/s`);
    const ref = { apiVersion: 'v1', kind: 'Secret', namespace: NS, name: 's', renderRef: A };
    const metric = async () =>
      (
        await harness.metrics.registry.getSingleMetric('convoy_observer_watch_fallbacks_total')?.get()
      )?.values.find((v) => v.labels.kind === 'Secret')?.value ?? 0;
    await waitFor(
      'the Secret watch given up',
      async () => {
        const r = await read(getter, [ref], { releaseLabel: `${NS}.s` });
        assert.equal(r.kind, 'read');
        assert.equal(r.reads[0]?.kind, 'found', 'read by GET all along');
        return (await metric()) >= 1;
      },
      { timeoutMs: 30_000 },
    );
    const r = await read(getter, [ref], { releaseLabel: `${NS}.s` });
    assert.equal(r.kind === 'read' && r.gets, 1, 'a GET, not the cache');
    assert.ok(!watches.watching().includes('v1 Secret'));
    watches.forget('test', `${NS}/s`);
  });

  it('a watch stops with the last Release that reads its kind', async () => {
    assert.ok(watches.watching().includes('v1 Pod'));
    await client.delete({ apiVersion: API_VERSION, kind: 'Release', namespace: NS, name: 'pod' });
    assert.ok(watches.watching().includes('v1 Pod'), 'the Release pod-rv still reads Pods');
    await client.delete({ apiVersion: API_VERSION, kind: 'Release', namespace: NS, name: 'pod-rv' });
    await waitFor('the Pod watch stopped', async () => !watches.watching().includes('v1 Pod'), {
      timeoutMs: 30_000,
    });
    assert.ok(watches.watching().includes('v1 ConfigMap'), 'the ConfigMap Release still reads');
  });
});
