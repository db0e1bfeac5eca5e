// A ReleaseSet spanning shards (docs/design.md#fleets): two controller-manager processes, each owning one
// of two shards (--shard-index), one observer holding both observer shards, and three target clusters
// (extra kube-apiservers, each with its own kwok node): c1 (wave 1) and c3 (wave 2) on the shard the
// set's namespace is not on, c2 (wave 2) on the set's shard. Each Release is worked by its Cluster's
// shard only, the set by its namespace's. With maxParallel 1 and a soak: a healthy revision reaches every
// cluster in wave order, the second member of wave 2 starting only after the first Succeeded and wave 2
// only after wave 1 soaked (timestamps from the set's status); a revision failing on wave 2 never reaches
// c3 and rolls wave 1 back on the other shard, its ConfigMap included; a forced sync after that fleet
// rollback runs the same revision again as a new train; a next revision unpins and reaches every cluster.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { API_VERSION } from '../../src/api/constants.ts';
import type { FleetMemberStatus, ReleaseSet } from '../../src/api/types.ts';
import { shardOf } from '../../src/runtime/index.ts';
import { type FleetMemberSpec, fleetFixture, trainEnded } from '../support/fleet.ts';
import { type ManagerProcess, startControllerManager } from '../support/processes.ts';
import { mergePatch } from '../support/release.ts';
import { convoySystemPerFile, LEASE_NS } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'fleet-shards';
const SHARDS = ['--shard-count', '2'];
/** The shard of the set (its namespace's), and the other one. */
const SET_SHARD = shardOf({ kind: 'namespace', namespace: NS }, 2);
const OTHER = 1 - SET_SHARD;
const sys = convoySystemPerFile({
  identity: 'fleet-shards-0',
  nodes: 1,
  extraClusters: 3,
  extraWorkloads: true,
  managerArgs: [...SHARDS, '--shard-index', '0'],
  observerArgs: SHARDS,
  setUp: async (s) => {
    second = await startControllerManager({
      tenancy: { mode: 'cluster' },
      kubeconfigPath: s.cp.kubeconfigPath,
      identity: 'fleet-shards-1',
      leaseNamespace: LEASE_NS,
      gitCacheDir: `${s.work}/git-cache-1`,
      args: [...SHARDS, '--shard-index', '1'],
    });
  },
});
let second: ManagerProcess | undefined;
after(async () => {
  await second?.stop();
});
const managers = (): ManagerProcess[] => {
  if (second === undefined) throw new Error('the shard-1 controller-manager is not running');
  return [sys.manager, second];
};

/** Members: the extra cluster, the wave, the shard and the version that is bad there. */
const SPEC: Record<string, FleetMemberSpec> = {
  c1: { extra: 0, targetNs: 'web', wave: 1, shard: OTHER, bad: 'none' },
  c2: { extra: 1, targetNs: 'web', wave: 2, shard: SET_SHARD, bad: 'v2' },
  c3: { extra: 2, targetNs: 'web', wave: 2, shard: OTHER, bad: 'none' },
};
const STRATEGY = { maxParallel: 1, soak: '10s' } as const;
const SOAK_MS = 10_000;
const logs = () => `${sys.logs()}\n--- controller-manager shard 1 ---\n${second?.log().slice(-4000) ?? ''}`;
const fleet = fleetFixture(sys, NS, SPEC, logs);
const row = (s: ReleaseSet, c: string): FleetMemberStatus => {
  const r = s.status?.clusters?.find((m) => m.cluster === c);
  if (r === undefined) throw new Error(`no row for ${c}: ${JSON.stringify(s.status?.clusters)}`);
  return r;
};
const ms = (t: string | undefined, what: string): number => {
  const v = Date.parse(t ?? '');
  assert.ok(!Number.isNaN(v), `${what} is a time: ${t}`);
  return v;
};
/** The release controller's log lines about a key in one process's log. */
const linesAbout = (m: ManagerProcess, key: string) =>
  m
    .log()
    .split('\n')
    .filter((l) => l.includes('"controller":"release"') && l.includes(`"key":"${key}"`));

describe('ReleaseSet spanning two controller-manager shards', () => {
  it('a healthy revision reaches every cluster in wave order, one at a time in wave 2, after the soak', async (t) => {
    await sys.namespace(NS);
    await fleet.applyRule();
    for (const c of fleet.names) await fleet.addCluster(c);
    await fleet.applySet('v1', STRATEGY);
    const set = await fleet.waitSet('v1 on every cluster', trainEnded('Succeeded'));
    for (const c of fleet.names) assert.equal(await fleet.live(c), 'v1', c);
    const [c1, c2, c3] = fleet.names.map((c) => row(set, c));
    if (c1 === undefined || c2 === undefined || c3 === undefined) throw new Error('rows');
    t.diagnostic(JSON.stringify([c1, c2, c3].map((r) => [r.cluster, r.startedAt, r.succeededAt])));
    // Wave 2 starts after wave 1 Succeeded and soaked; inside it, maxParallel 1: c3 after c2 Succeeded.
    assert.ok(
      ms(c2.startedAt, 'c2 startedAt') >= ms(c1.succeededAt, 'c1 succeededAt') + SOAK_MS,
      `wave 2 held for the soak of wave 1: ${JSON.stringify([c1, c2])}`,
    );
    assert.ok(
      ms(c3.startedAt, 'c3 startedAt') >= ms(c2.succeededAt, 'c2 succeededAt'),
      `maxParallel 1: c3 starts after c2 Succeeded: ${JSON.stringify([c2, c3])}`,
    );
    // Each Release was worked by the process of its Cluster's shard, and only by it.
    for (const c of fleet.names) {
      const key = `${NS}/web-${c}`;
      const shard = SPEC[c]?.shard ?? -1;
      const [owner, other] = shard === 0 ? managers() : [...managers()].reverse();
      if (owner === undefined || other === undefined) throw new Error('managers');
      assert.ok(linesAbout(owner, key).length > 0, `shard ${shard} worked ${key}\n${logs()}`);
      assert.deepEqual(linesAbout(other, key), [], `the other shard never worked ${key}`);
    }
  });

  it('a revision failing on wave 2 stops before c3 and rolls wave 1 back on the other shard', async () => {
    const before = (await fleet.set()).status?.good?.revision;
    await fleet.applySet('v2', STRATEGY);
    const set = await fleet.waitSet('fleet rollback of v2', trainEnded('RolledBack'));
    assert.equal(set.status?.train?.failedCluster, 'c2');
    assert.deepEqual([...(set.status?.train?.rolledBack ?? [])].sort(), ['c1', 'c2']);
    assert.equal(set.status?.good?.revision, before, 'the good revision stays the last healthy one');
    for (const c of ['c1', 'c2'])
      await waitFor(`${c} back on v1 (its ConfigMap)`, async () => (await fleet.live(c)) === 'v1', {
        timeoutMs: 120_000,
      });
    assert.ok(
      (await fleet.release('c1'))?.spec.pin !== undefined,
      'c1 (shard of the other process) is pinned',
    );
    assert.equal(await fleet.live('c3'), 'v1', 'c3 never got v2');
    assert.notEqual(
      (await fleet.release('c3'))?.metadata.annotations?.['convoy.kumodo.io/fleet-revision'],
      set.status?.revision,
    );
  });

  it('a forced sync after the fleet rollback runs the same revision again as a new train', async () => {
    const rolled = await fleet.set();
    const first = rolled.status?.train?.id;
    await mergePatch(
      sys.client,
      { apiVersion: API_VERSION, kind: 'ReleaseSet', namespace: NS, name: 'web' },
      { metadata: { annotations: { 'convoy.kumodo.io/force-sync-at': new Date().toISOString() } } },
    );
    const set = await fleet.waitSet(
      'a new train of v2 rolled back',
      (s) => trainEnded('RolledBack')(s) && s.status?.train?.id !== first,
    );
    assert.equal(set.status?.revision, rolled.status?.revision, 'the same revision');
    assert.equal(set.status?.train?.failedCluster, 'c2');
    const c1 = await fleet.release('c1');
    assert.equal(
      c1?.metadata.annotations?.['convoy.kumodo.io/fleet-train'],
      set.status?.train?.id,
      'c1 was given the new train',
    );
    assert.ok(
      ms(row(set, 'c1').startedAt, 'c1 startedAt') >= ms(rolled.status?.train?.finishedAt, 'first train end'),
      'c1 took the train again after the first one ended',
    );
    for (const c of ['c1', 'c2'])
      await waitFor(`${c} back on v1`, async () => (await fleet.live(c)) === 'v1', {
        timeoutMs: 120_000,
      }).catch(async (err: Error) => {
        const r = await fleet.release(c);
        const seen = JSON.stringify({
          row: row(set, c),
          pin: r?.spec.pin,
          lastHealthy: r?.status?.lastHealthy,
        });
        throw new Error(`${err.message}\n${seen}\n${logs()}`, { cause: err });
      });
    assert.equal(await fleet.live('c3'), 'v1', 'c3 never got v2');
  });

  it('the next revision unpins the rolled back clusters and reaches every cluster', async () => {
    await fleet.applySet('v3', STRATEGY);
    const set = await fleet.waitSet('v3 on every cluster', trainEnded('Succeeded'));
    assert.equal(set.status?.good?.revision, set.status?.revision);
    for (const c of fleet.names) {
      assert.equal(await fleet.live(c), 'v3', c);
      assert.equal((await fleet.release(c))?.spec.pin, undefined, `${c} unpinned`);
    }
  });
});
