// Two harness replicas (child processes running test/support/runtime-demo.ts) against one apiserver:
// each Cluster's stand-in Releases are worked by exactly one replica, the one holding the
// shard's Lease; SIGKILL of a replica hands its shards to the other within the lease
// duration; a graceful SIGTERM releases its Leases so the hand-over is immediate. Also checks
// /readyz, /metrics and that every log line about a key carries the key. Then in-process
// electors over 4 shards: the shards spread evenly, rebalance when replicas join, stop or crash,
// and member Leases of replicas gone for long are deleted.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { leaseLive, readLease, ShardElector } from '../../src/runtime/elector.ts';
import { isLeaseLive, microTime } from '../../src/runtime/lease.ts';
import { newLogger } from '../../src/runtime/log.ts';
import { MEMBER_LABEL, memberLeaseName } from '../../src/runtime/member.ts';
import { controllerLeaseName, shardOf } from '../../src/runtime/shard.ts';
import { Transport } from '../../src/runtime/transport.ts';
import { type ControlPlane, startControlPlane } from '../../src/testenv/index.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'shard-test';
const SHARDS = 2;
const LEASE_SECONDS = 3;
const RETRY_MS = 500;
const CLUSTER_LABEL = 'convoy-test/cluster';

type Line = {
  at: number;
  msg?: string;
  key?: string;
  identity?: string;
  shard?: number;
  data?: Record<string, string>;
  probePort?: number;
  [k: string]: unknown;
};

class Replica {
  readonly lines: Line[] = [];
  readonly proc: ChildProcess;
  readonly identity: string;
  exited = false;
  constructor(identity: string, kubeconfig: string) {
    this.identity = identity;
    this.proc = spawn(process.execPath, ['test/support/runtime-demo.ts'], {
      env: {
        ...process.env,
        KUBECONFIG: kubeconfig,
        DEMO_NAMESPACE: NS,
        DEMO_IDENTITY: identity,
        DEMO_SHARDS: String(SHARDS),
        DEMO_LEASE_SECONDS: String(LEASE_SECONDS),
        DEMO_RETRY_MS: String(RETRY_MS),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.proc.on('exit', () => {
      this.exited = true;
    });
    createInterface({ input: this.proc.stdout as NodeJS.ReadableStream }).on('line', (l) => {
      try {
        this.lines.push({ ...(JSON.parse(l) as Line), at: Date.now() });
      } catch {
        this.lines.push({ at: Date.now(), msg: `non-JSON: ${l}` });
      }
    });
  }
  reconciled(since = 0): Line[] {
    return this.lines.filter((l) => l.msg === 'reconciled' && l.at >= since);
  }
  acquired(since = 0): number[] {
    return this.lines
      .filter((l) => l.msg === 'acquired shard lease' && l.at >= since)
      .map((l) => l.shard as number);
  }
  async stop(signal: NodeJS.Signals): Promise<void> {
    if (this.exited) return;
    const done = new Promise((r) => this.proc.once('exit', r));
    this.proc.kill(signal);
    await done;
  }
}

describe('runtime shards: two replicas, one apiserver', () => {
  let cp: ControlPlane;
  let t: Transport;
  const replicas: Replica[] = [];
  const releases: Array<{ name: string; cluster: string; shard: number }> = [];

  const bumpAll = async (gen: string) => {
    for (const r of releases) {
      await t.request('PATCH', `/api/v1/namespaces/${NS}/configmaps/${r.name}`, { data: { gen } });
    }
  };
  /** Per release: the identities that reconciled it with data.gen === gen. */
  const workersOf = (gen: string) => {
    const m = new Map<string, Set<string>>();
    for (const rep of replicas) {
      for (const l of rep.reconciled()) {
        if (l.data?.gen !== gen || !l.key) continue;
        const name = l.key.split('/')[1] as string;
        const s = m.get(name) ?? new Set();
        s.add(rep.identity);
        m.set(name, s);
      }
    }
    return m;
  };

  before(async () => {
    cp = await startControlPlane();
    t = new Transport(cp.kubeConfig);
    await t.request('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: NS },
    });
    // Clusters spread over both shards, three Releases each.
    for (let c = 0; c < 6; c++) {
      const cluster = `cluster-${c}`;
      const shard = shardOf({ kind: 'cluster', namespace: NS, name: cluster }, SHARDS);
      for (let i = 0; i < 3; i++) {
        const name = `${cluster}-rel-${i}`;
        releases.push({ name, cluster, shard });
        await t.request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace: NS, labels: { [CLUSTER_LABEL]: cluster } },
          data: { gen: '1' },
        });
      }
    }
    assert.deepEqual(
      [...new Set(releases.map((r) => r.shard))].sort(),
      [0, 1],
      'test clusters must cover both shards',
    );
  });

  after(async () => {
    for (const r of replicas) await r.stop('SIGKILL');
    await cp?.stop();
  });

  it('each Cluster is worked by exactly one replica, the holder of its shard', async () => {
    // Leases left by an earlier run of the same replicas: each gets its own shard back, so the
    // split between the two is known (otherwise the balance decides who gets which).
    for (const [shard, holder] of [
      [0, 'replica-a'],
      [1, 'replica-b'],
    ] as const) {
      await t.request('POST', `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: `convoy-controller-shard-${shard}`, namespace: NS },
        spec: { holderIdentity: holder, leaseDurationSeconds: 30, renewTime: microTime(Date.now()) },
      });
    }
    replicas.push(new Replica('replica-a', cp.kubeconfigPath), new Replica('replica-b', cp.kubeconfigPath));
    const [a, b] = replicas as [Replica, Replica];
    await waitFor(
      'each replica holds its shard',
      async () => a.acquired().includes(0) && b.acquired().includes(1),
      {
        timeoutMs: 60_000,
      },
    );
    await bumpAll('2');
    const workers = await waitFor(
      'every release reconciled at gen 2',
      async () => {
        const w = workersOf('2');
        return releases.every((r) => w.has(r.name)) ? w : false;
      },
      { timeoutMs: 60_000 },
    );
    for (const r of releases) {
      const ids = [...(workers.get(r.name) ?? [])];
      assert.equal(ids.length, 1, `${r.name} worked by ${ids.join(', ')}`);
      const holder = replicas.find((rep) => rep.identity === ids[0]);
      assert.ok(
        holder?.acquired().includes(r.shard),
        `${r.name} (shard ${r.shard}) worked by ${ids[0]}, which never held it`,
      );
    }
    assert.ok(a.reconciled().length > 0 && b.reconciled().length > 0, 'one replica did all the work');
    assert.deepEqual([...new Set(a.acquired())], [0]);
    assert.deepEqual([...new Set(b.acquired())], [1]);
    // The same Cluster never split across replicas.
    for (const c of new Set(releases.map((r) => r.cluster))) {
      const ids = new Set(
        releases.filter((r) => r.cluster === c).flatMap((r) => [...(workers.get(r.name) ?? [])]),
      );
      assert.equal(ids.size, 1, `cluster ${c} split over ${[...ids].join(', ')}`);
    }
    // Every log line about a key carries it (the `reconciled` lines and any error lines).
    for (const rep of replicas) {
      for (const l of rep.lines) {
        if (l.msg === 'reconciled' || l.msg === 'reconcile failed')
          assert.equal(typeof l.key, 'string', JSON.stringify(l));
        assert.equal(typeof l.level, 'number', `not a pino JSON line: ${JSON.stringify(l)}`);
      }
    }
  });

  it('serves /readyz and /metrics on its probe port', async () => {
    const rep = replicas[0] as Replica;
    const port = rep.lines.find((l) => l.msg === 'demo ready')?.probePort;
    assert.ok(port, 'demo did not report its probe port');
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    for (const m of [
      'convoy_workqueue_depth',
      'convoy_workqueue_adds_total',
      'convoy_workqueue_retries_total',
      'convoy_reconcile_duration_seconds_count',
      'convoy_reconcile_errors_total',
      'convoy_shard_leases_held',
    ]) {
      assert.match(metrics, new RegExp(`^${m}`, 'm'), `missing ${m}`);
    }
    assert.match(metrics, /convoy_workqueue_adds_total\{controller="demo"\} [1-9]/);
  });

  it('SIGKILL of a replica hands its shards to the other within the lease duration', async () => {
    // Kill a replica that holds at least one shard (the one that acquired shard 0).
    const [a, b] = replicas as [Replica, Replica];
    const victim = a.acquired().includes(0) ? a : b;
    const survivor = victim === a ? b : a;
    const victimShards = [...new Set(victim.acquired())];
    const killedAt = Date.now();
    await victim.stop('SIGKILL');
    await waitFor(
      'survivor holds every shard',
      async () => {
        const got = survivor.acquired(killedAt);
        return victimShards.every((s) => got.includes(s));
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    const tookOverMs = Math.max(
      ...victimShards.map(
        (s) =>
          (survivor.lines.find((l) => l.msg === 'acquired shard lease' && l.shard === s && l.at >= killedAt)
            ?.at ?? Infinity) - killedAt,
      ),
    );
    // The victim renewed at most RETRY_MS before dying; the survivor notices expiry on its next
    // try (RETRY_MS later at most); 1 s of slack for two shared cores.
    assert.ok(tookOverMs <= LEASE_SECONDS * 1000 + RETRY_MS + 1000, `hand-over took ${tookOverMs} ms`);
    process.stdout.write(
      `# SIGKILL hand-over of shards ${victimShards} took ${tookOverMs} ms (lease ${LEASE_SECONDS}s)\n`,
    );
    // The survivor works the victim's Releases without any new event: gaining a shard enqueues them.
    await waitFor(
      "survivor reconciled the victim's releases",
      async () => {
        const done = new Set(survivor.reconciled(killedAt).map((l) => l.key?.split('/')[1]));
        return releases.filter((r) => victimShards.includes(r.shard)).every((r) => done.has(r.name));
      },
      { timeoutMs: 30_000 },
    );
    const lease = await waitFor("the killed replica's lease is now the survivor's", async () => {
      const l = await t.request<{ spec: { holderIdentity: string } }>(
        'GET',
        `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/convoy-controller-shard-${victimShards[0]}`,
      );
      return l.spec.holderIdentity === survivor.identity ? l : false;
    });
    assert.equal(lease.spec.holderIdentity, survivor.identity);
    // A dead holder's lease is not live once its duration passed; the live one is.
    assert.equal(await leaseLive(t, NS, `convoy-controller-shard-${victimShards[0]}`), true);
    assert.equal(await leaseLive(t, NS, 'convoy-observer-shard-0'), false);
  });

  it('a joining replica gets its share; SIGTERM releases leases, so the hand-over does not wait for expiry', async () => {
    const survivor = replicas.find((r) => !r.exited) as Replica;
    const fresh = new Replica('replica-c', cp.kubeconfigPath);
    replicas.push(fresh);
    // The survivor holds both shards; the newcomer's share is one, so the survivor gives one up.
    const given = await waitFor(
      'replica-c holds one shard',
      async () => {
        const got = [...new Set(fresh.acquired())];
        return got.length === 1 ? got[0] : false;
      },
      { timeoutMs: 60_000 },
    );
    assert.ok(
      survivor.lines.some((l) => l.msg === 'released shard lease for balance' && l.shard === given),
      `survivor did not release shard ${given} for balance`,
    );
    const kept = 1 - (given as number);
    const stoppedAt = Date.now();
    await survivor.stop('SIGTERM');
    assert.equal(survivor.proc.exitCode, 0, 'graceful stop did not exit 0');
    assert.ok(survivor.lines.some((l) => l.msg === 'harness stopped'));
    assert.ok(survivor.lines.some((l) => l.msg === 'released member lease'));
    await waitFor('replica-c holds both shards', async () => fresh.acquired(stoppedAt).includes(kept), {
      timeoutMs: 30_000,
      intervalMs: 50,
    });
    const tookOverMs =
      (fresh.lines.find((l) => l.msg === 'acquired shard lease' && l.shard === kept && l.at >= stoppedAt)
        ?.at ?? Infinity) - stoppedAt;
    process.stdout.write(`# SIGTERM hand-over took ${tookOverMs} ms\n`);
    // Released leases are free at once: replica-c takes them on its next try, before they would expire.
    assert.ok(tookOverMs < LEASE_SECONDS * 1000, `hand-over after release took ${tookOverMs} ms`);
  });

  describe('balance: in-process electors sharing 4 shards', () => {
    const BAL_NS = 'balance-test';
    const N = 4;
    const BAL_LEASE_SECONDS = 3;
    const BAL_RETRY_MS = 300;
    type Member = { elector: ShardElector; lines: Line[]; changes: number; running: boolean };
    const members = new Map<string, Member>();

    const join = (identity: string): Member => {
      const lines: Line[] = [];
      const m: Member = { elector: undefined as unknown as ShardElector, lines, changes: 0, running: true };
      m.elector = new ShardElector({
        transport: t,
        namespace: BAL_NS,
        leaseName: controllerLeaseName,
        identity,
        shards: N,
        leaseDurationSeconds: BAL_LEASE_SECONDS,
        retryMs: BAL_RETRY_MS,
        log: newLogger(identity, { write: (l: string) => lines.push({ ...JSON.parse(l), at: Date.now() }) }),
        onGained: () => m.changes++,
        onLost: () => m.changes++,
      });
      members.set(identity, m);
      m.elector.start();
      return m;
    };
    const leave = async (identity: string, release: boolean) => {
      const m = members.get(identity) as Member;
      m.running = false;
      await m.elector.stop(release);
    };
    const running = () => [...members.entries()].filter(([, m]) => m.running);
    /** Shard -> live holder, as the API server has it. */
    const apiHolders = async () =>
      await Promise.all(
        Array.from({ length: N }, async (_, s) => {
          const l = await readLease(t, BAL_NS, controllerLeaseName(s));
          return isLeaseLive(l, Date.now()) ? (l?.spec?.holderIdentity ?? undefined) : undefined;
        }),
      );
    /** Every shard held by exactly one running member (its own view and the API's agree), counts per member. */
    const settled = async (): Promise<Map<string, number> | false> => {
      const holders = await apiHolders();
      const counts = new Map(running().map(([id]) => [id, 0]));
      for (let s = 0; s < N; s++) {
        const owners = running().filter(([, m]) => m.elector.owns(s));
        if (owners.length !== 1 || owners[0]?.[0] !== holders[s]) return false;
        counts.set(holders[s] as string, (counts.get(holders[s] as string) ?? 0) + 1);
      }
      return counts;
    };

    before(async () => {
      await t.request('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: BAL_NS },
      });
    });
    after(async () => {
      for (const [id] of running()) await leave(id, true);
    });

    it('two replicas end with 2 shards each', async () => {
      join('bal-a');
      join('bal-b');
      const counts = await waitFor(
        'a 2/2 split',
        async () => {
          const c = await settled();
          return c && [...c.values()].every((n) => n === 2) ? c : false;
        },
        { timeoutMs: 20_000 },
      );
      assert.deepEqual([...counts.keys()].sort(), ['bal-a', 'bal-b']);
    });

    it('when one stops, the other ends holding all 4 without waiting for expiry', async () => {
      const stoppedAt = Date.now();
      await leave('bal-a', true);
      await waitFor(
        'bal-b holds 4',
        async () => (await settled()) && members.get('bal-b')?.elector.held().length === 4,
        {
          timeoutMs: 20_000,
          intervalMs: 50,
        },
      );
      const tookMs = Date.now() - stoppedAt;
      assert.ok(tookMs < BAL_LEASE_SECONDS * 1000, `hand-over after stop took ${tookMs} ms`);
      const member = await readLease(t, BAL_NS, memberLeaseName('convoy-controller', 'bal-a'));
      assert.equal(member?.metadata.labels?.[MEMBER_LABEL], 'convoy-controller');
      assert.equal(isLeaseLive(member, Date.now()), false, 'stopped member still live');
    });

    it('a third replica joining two holders of 4: nobody holds more than 2, every shard held', async () => {
      join('bal-c');
      await waitFor(
        'bal-b and bal-c at 2/2',
        async () => {
          const c = await settled();
          return c && c.get('bal-b') === 2 && c.get('bal-c') === 2;
        },
        { timeoutMs: 20_000 },
      );
      const b = members.get('bal-b') as Member;
      assert.ok(
        b.lines.some((l) => l.msg === 'released shard lease for balance'),
        'bal-b logged no release',
      );
      join('bal-d');
      const counts = await waitFor(
        'a 2/1/1 split',
        async () => {
          const c = await settled();
          return c && [...c.values()].sort().join() === '1,1,2' ? c : false;
        },
        { timeoutMs: 20_000 },
      );
      // Settled means settled: over several more rounds of every member, no shard changes hands.
      const changes = running().map(([, m]) => m.changes);
      const since = Date.now();
      await waitFor(
        'three more rounds of every member',
        async () => {
          const leases = await Promise.all(
            running().map(([id]) => readLease(t, BAL_NS, memberLeaseName('convoy-controller', id))),
          );
          return leases.every((l) => Date.parse(l?.spec?.renewTime ?? '') >= since + 3 * BAL_RETRY_MS);
        },
        { timeoutMs: 20_000 },
      );
      assert.deepEqual(
        running().map(([, m]) => m.changes),
        changes,
        'shards changed hands after settling',
      );
      assert.deepEqual(await settled(), counts);
    });

    it('a crashed replica (no release) is dropped and its shards taken within the lease duration', async () => {
      const victim = running().find(([, m]) => m.elector.held().length === 2)?.[0] as string;
      const crashedAt = Date.now();
      await leave(victim, false);
      const counts = await waitFor(
        'the two others at 2/2',
        async () => {
          const c = await settled();
          return c && [...c.values()].every((n) => n === 2) ? c : false;
        },
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      assert.equal(counts.size, 2);
      const tookMs = Date.now() - crashedAt;
      // Expiry of its Leases, then a round of each survivor (2 × retry) and slack for two shared cores.
      assert.ok(tookMs <= BAL_LEASE_SECONDS * 1000 + 2 * BAL_RETRY_MS + 1000, `take-over took ${tookMs} ms`);
    });

    it('deletes the member Lease of a replica gone for long', async () => {
      const name = memberLeaseName('convoy-controller', 'gone-long-ago');
      await t.request('POST', `/apis/coordination.k8s.io/v1/namespaces/${BAL_NS}/leases`, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace: BAL_NS, labels: { [MEMBER_LABEL]: 'convoy-controller' } },
        spec: {
          holderIdentity: 'gone-long-ago',
          leaseDurationSeconds: BAL_LEASE_SECONDS,
          renewTime: microTime(Date.now() - 3_600_000),
        },
      });
      // A recently expired one is still kept: its replica may only be slow.
      assert.ok(await readLease(t, BAL_NS, memberLeaseName('convoy-controller', 'bal-a')));
      await waitFor(
        'the gone member Lease deleted',
        async () => (await readLease(t, BAL_NS, name)) === undefined,
        {
          timeoutMs: 10_000,
        },
      );
      assert.ok(await readLease(t, BAL_NS, memberLeaseName('convoy-controller', 'bal-a')));
    });
  });
});
