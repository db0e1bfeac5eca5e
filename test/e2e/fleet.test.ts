// ReleaseSets on the real control plane with three target clusters (extra kube-apiservers, each on its
// own etcd prefix) in waves 1–2–3, and a fourth Cluster on the first apiserver in another namespace:
// a healthy revision reaches them in wave order (the Releases' rollout timestamps); a paused cluster
// holds the waves above it and a cluster added meanwhile gets the good revision; a revision failing on
// wave 2 never reaches wave 3 and wave 1 is rolled back (its ConfigMap included); a controller-manager
// killed mid-train resumes it. `convoy fleet watch` exits 1 on the fleet rollback and 0 on success. Each
// target cluster runs its own kube-controller-manager, kube-scheduler and kwok node, so a Deployment a
// ReleaseSet sends there becomes Available there. A Cluster leaving the selector loses its Releases and
// their objects.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { API_VERSION } from '../../src/api/constants.ts';
import type { Release, ReleaseSet } from '../../src/api/types.ts';
import { runConvoy } from '../../src/cli/testsupport.ts';
import { applyObject } from '../../src/kube/apply.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { Informer, type KubeObject, Transport } from '../../src/runtime/index.ts';
import { type FleetMemberSpec, fleetFixture, trainEnded } from '../support/fleet.ts';
import { type ManagerProcess, startControllerManager } from '../support/processes.ts';
import { mergePatch } from '../support/release.ts';
import { deployment } from '../support/rollout.ts';
import { convoySystemPerFile, DEFAULT_RULES_SELECTOR, LEASE_NS } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'fleet';
const sys = convoySystemPerFile({ identity: 'fleet', nodes: 1, extraClusters: 3, extraWorkloads: true });
let manager: ManagerProcess | undefined;
after(async () => {
  await manager?.stop();
});

/** Members: three apiservers in waves 1–2–3, and c4 on the first one in another namespace (wave 3). */
const SPEC: Record<string, FleetMemberSpec> = {
  c1: { extra: 0, targetNs: 'web-a', wave: 1, bad: 'none' },
  c2: { extra: 1, targetNs: 'web-a', wave: 2, bad: 'v3' },
  c3: { extra: 2, targetNs: 'web-a', wave: 3, bad: 'none' },
  c4: { extra: 0, targetNs: 'web-b', wave: 3, bad: 'none' },
};
const logs = () => `${sys.logs()}\n${manager?.log().slice(-4000) ?? ''}`;
const fleet = fleetFixture(sys, NS, SPEC, logs);
const row = (s: ReleaseSet, c: string) => s.status?.clusters?.find((m) => m.cluster === c);
const cli = (...args: string[]) => runConvoy([...args, '-n', NS, '--kubeconfig', sys.cp.kubeconfigPath]);
const paused = (c: string, p: boolean) =>
  mergePatch(
    sys.client,
    { apiVersion: API_VERSION, kind: 'Cluster', namespace: NS, name: c },
    { spec: { paused: p } },
  );
const revisionOf = async (c: string) =>
  (await fleet.release(c))?.metadata.annotations?.['convoy.kumodo.io/fleet-revision'];

/**
 * For each train, the order (one watch of the namespace's Releases: the API's order) and local time at
 * which each member's Release was given it and was first seen Succeeded on it.
 */
function recordTrain() {
  const informer = new Informer<Release & KubeObject>(new Transport(sys.cp.kubeConfig), {
    path: `/apis/${API_VERSION}/namespaces/${NS}/releases`,
  });
  let seq = 0;
  const given = new Map<string, { seq: number; at: number }>();
  const done = new Map<string, { seq: number; at: number }>();
  const see = (r: Release) => {
    seq++;
    const train = r.metadata.annotations?.['convoy.kumodo.io/fleet-train'];
    const c = `${train}/${r.metadata.labels?.['convoy.kumodo.io/fleet-cluster'] ?? ''}`;
    if (!given.has(c)) given.set(c, { seq, at: Date.now() });
    const s = r.status;
    const ok =
      s?.observedGeneration === r.metadata.generation &&
      s?.rollout?.state === 'Succeeded' &&
      s.rollout.renderRef === s.currentRender?.renderRef;
    if (ok && !done.has(c)) done.set(c, { seq, at: Date.now() });
  };
  informer.addHandlers({ add: see, update: (_o, n) => see(n) });
  return {
    start: async () => {
      informer.start();
      await informer.waitForSync();
    },
    given,
    done,
    /** Each `higher` member was given train `id` only after `lower` was Succeeded on it. */
    assertGivenAfter(id: string | undefined, pairs: readonly (readonly [string, string])[], detail = '') {
      for (const [lower, higher] of pairs) {
        const g = given.get(`${id}/${higher}`);
        const d = done.get(`${id}/${lower}`);
        assert.ok(
          g !== undefined && d !== undefined && g.seq > d.seq,
          `${higher} given after ${lower} Succeeded${detail}`,
        );
      }
    },
    stop: () => informer.stop(),
  };
}

describe('ReleaseSet over three clusters in waves 1–2–3', () => {
  it('sets up the rule, the clusters and the first revision, which reaches the waves in order', async (t) => {
    await sys.namespace(NS);
    await fleet.applyRule();
    for (const c of ['c1', 'c2', 'c3']) await fleet.addCluster(c);
    const rec = recordTrain();
    await rec.start();
    await fleet.applySet('v1');
    const set = await fleet.waitSet('v1 on every cluster', trainEnded('Succeeded'));
    await rec.stop();
    const id = set.status?.train?.id;
    assert.equal(set.status?.good?.revision, set.status?.revision);
    for (const c of ['c1', 'c2', 'c3']) assert.equal(await fleet.live(c), 'v1', c);
    const at = (m: Map<string, { at: number }>, c: string) => (m.get(`${id}/${c}`)?.at ?? Number.NaN) - t0;
    const t0 = rec.given.get(`${id}/c1`)?.at ?? 0;
    const shown = ['c1', 'c2', 'c3'].map(
      (c) => `${c}: given +${at(rec.given, c)} ms, Succeeded +${at(rec.done, c)} ms`,
    );
    t.diagnostic(shown.join('; '));
    rec.assertGivenAfter(
      id,
      [
        ['c1', 'c2'],
        ['c2', 'c3'],
      ],
      `: ${shown}`,
    );
    // The Releases' own rollout times say the same (second precision).
    const times = await Promise.all(
      ['c1', 'c2', 'c3'].map(async (c) => (await fleet.release(c))?.status?.rollout),
    );
    for (let i = 1; i < times.length; i++) {
      assert.ok(Date.parse(times[i]?.startedAt ?? '') >= Date.parse(times[i - 1]?.finishedAt ?? ''));
    }
    const release = await fleet.release('c1');
    assert.equal(release?.metadata.ownerReferences?.[0]?.kind, 'ReleaseSet');
    assert.deepEqual(release?.spec.cluster, { name: 'c1' });
  });

  it('a paused cluster holds the waves above it; a cluster added meanwhile gets the good revision', async () => {
    const good = (await fleet.set()).status?.revision;
    await paused('c2', true);
    await fleet.applySet('v2');
    const held = await fleet.waitSet('c1 on v2, c2 paused', (s) => {
      const c1 = row(s, 'c1');
      return (
        c1?.state === 'Succeeded' && c1.revision === s.status?.revision && row(s, 'c2')?.state === 'Paused'
      );
    });
    assert.match(row(held, 'c2')?.message ?? '', /Cluster c2 has spec.paused true/);
    assert.notEqual(
      row(held, 'c3')?.revision,
      held.status?.revision,
      'wave 3 waits behind the paused wave 2',
    );
    await fleet.addCluster('c4');
    await waitFor('c4 on the good revision', async () => (await fleet.live('c4')) === 'v1', {
      timeoutMs: 120_000,
    });
    assert.equal(await revisionOf('c4'), good);
    assert.equal(await fleet.live('c3'), 'v1');
    await paused('c2', false);
    await fleet.waitSet('v2 on every cluster', trainEnded('Succeeded'));
    for (const c of ['c1', 'c2', 'c3', 'c4']) assert.equal(await fleet.live(c), 'v2', c);
  });

  it('a revision failing on wave 2 stops before wave 3 and rolls wave 1 back; fleet watch exits 1', async () => {
    await fleet.applySet('v3');
    const watch = cli('fleet', 'watch', 'web', '--timeout', '5m');
    const set = await fleet.waitSet('fleet rollback of v3', trainEnded('RolledBack'));
    assert.equal(set.status?.train?.failedCluster, 'c2');
    assert.deepEqual([...(set.status?.train?.rolledBack ?? [])].sort(), ['c1', 'c2']);
    await waitFor('c1 back on v2', async () => (await fleet.live('c1')) === 'v2', { timeoutMs: 120_000 });
    assert.equal(await fleet.live('c2'), 'v2');
    for (const c of ['c3', 'c4']) {
      assert.equal(await fleet.live(c), 'v2', `${c} never got v3`);
      assert.notEqual(
        (await fleet.release(c))?.metadata.annotations?.['convoy.kumodo.io/fleet-revision'],
        set.status?.revision,
      );
    }
    const done = await watch;
    assert.equal(done.code, 1, done.stdout + done.stderr);
    assert.match(done.stdout, /fleet rollback: revision \w+ failed on c2; rolled back c1, c2/);
    const status = await cli('fleet', 'status', 'web');
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /failed on c2/);
    assert.match(status.stdout, /c3 +3 +\w+ +Succeeded/);
  });

  it('a controller-manager killed mid-train: the next one resumes the train; fleet watch exits 0', async () => {
    const rec = recordTrain();
    await rec.start();
    await fleet.applySet('v4');
    await fleet.waitSet('v4 given to wave 2', (s) => {
      const c2 = row(s, 'c2');
      return (
        row(s, 'c1')?.state === 'Succeeded' &&
        c2?.revision === s.status?.revision &&
        s.status?.train?.revision === s.status?.revision
      );
    });
    await sys.manager.kill();
    manager = await startControllerManager({
      tenancy: { mode: 'cluster' },
      kubeconfigPath: sys.cp.kubeconfigPath,
      identity: 'fleet-2',
      leaseNamespace: LEASE_NS,
      leaseDuration: '5s',
      gitCacheDir: `${sys.work}/git-cache-2`,
    });
    const watch = await cli('fleet', 'watch', 'web', '--timeout', '5m');
    assert.equal(watch.code, 0, `${watch.stdout}${watch.stderr}\n${logs()}`);
    const set = await fleet.waitSet('v4 on every cluster', trainEnded('Succeeded'));
    await rec.stop();
    assert.equal(set.status?.good?.revision, set.status?.revision);
    const id = set.status?.train?.id;
    rec.assertGivenAfter(id, [
      ['c1', 'c2'],
      ['c2', 'c3'],
      ['c2', 'c4'],
    ]);
    for (const c of ['c1', 'c2', 'c3', 'c4']) assert.equal(await fleet.live(c), 'v4', c);
    assert.equal(
      (await fleet.release('c1'))?.spec.pin,
      undefined,
      'the new train unpinned the rolled back cluster',
    );
  });

  it("every member cluster runs workloads: a Deployment becomes Available on each, on that cluster's own node", async () => {
    const manifest = deployment('app', 'v1', 'healthy').replace(
      '  name: app\n',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder the inputs fill
      '  name: app\n  namespace: "${NS}"\n',
    );
    await applyObject(
      sys.client,
      {
        apiVersion: API_VERSION,
        kind: 'ReleaseSet',
        metadata: { name: 'apps', namespace: NS },
        spec: {
          clusterSelector: { matchLabels: { fleet: 'web' } },
          template: {
            spec: {
              source: { inline: { manifests: manifest } },
              // The default rules: a Deployment is healthy only once Available (no rule: once it exists).
              healthAssessment: { deadline: '5s', globalRuleSetSelector: DEFAULT_RULES_SELECTOR },
              failurePolicy: { deadline: '60s' },
            },
          },
          inputs: { substituteFromLabels: { NS: 'ns' } },
        },
      },
      { fieldManager: 'convoy-test', force: true },
    );
    for (const c of ['c1', 'c2', 'c3', 'c4']) {
      await waitFor(
        `apps-${c} Succeeded`,
        async () => {
          const r = await sys.client.get<Release>({
            apiVersion: API_VERSION,
            kind: 'Release',
            namespace: NS,
            name: `apps-${c}`,
          });
          return r?.status?.rollout?.state === 'Succeeded';
        },
        { timeoutMs: 180_000 },
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${logs()}`, { cause: err });
      });
      const m = fleet.member(c);
      const target = new KubeClient(m.access.kubeConfig);
      const d = await target.get<{ status?: { availableReplicas?: number } }>({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        namespace: m.targetNs,
        name: 'app',
      });
      assert.equal(d?.status?.availableReplicas, 1, `${c}: the Deployment is Available on its cluster`);
      const pods = await target.list<{ spec?: { nodeName?: string }; status?: { phase?: string } }>({
        apiVersion: 'v1',
        kind: 'Pod',
        namespace: m.targetNs,
      });
      assert.ok(
        pods.some((p) => p.spec?.nodeName === 'kwok-node-0' && p.status?.phase === 'Running'),
        `${c}: a Running pod on the cluster's own kwok node: ${JSON.stringify(pods.map((p) => [p.spec?.nodeName, p.status?.phase]))}`,
      );
    }
  });

  it('a Cluster that leaves the selector has its Releases deleted, and with them its objects', async () => {
    const c4 = fleet.member('c4');
    const target = new KubeClient(c4.access.kubeConfig);
    const app = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: c4.targetNs, name: 'app' };
    assert.ok((await target.get(app)) !== undefined, 'apps-c4 runs its Deployment before');
    await mergePatch(
      sys.client,
      { apiVersion: API_VERSION, kind: 'Cluster', namespace: NS, name: 'c4' },
      { metadata: { labels: { fleet: null } } },
    );
    await waitFor(
      'the Releases of c4 gone, and its Deployment and ConfigMap on the target',
      async () =>
        (await fleet.release('c4')) === undefined &&
        (await sys.client.get({
          apiVersion: API_VERSION,
          kind: 'Release',
          namespace: NS,
          name: 'apps-c4',
        })) === undefined &&
        (await target.get(app)) === undefined &&
        (await fleet.live('c4')) === undefined,
      { timeoutMs: 120_000 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${logs()}`, { cause: err });
    });
    // The other members keep theirs; c1 shares c4's apiserver, in another namespace.
    assert.ok((await fleet.release('c1')) !== undefined);
    assert.equal(await fleet.live('c1'), 'v4');
  });
});
