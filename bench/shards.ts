// npm run bench:shards — sharding under load (docs/design.md#sharding): N Releases of M inline ConfigMaps
// in 20 namespaces (a Release without a Cluster shards by its namespace), --shard-count S on every
// process, production's 15 s Lease duration. Each burst is timed from the first create to all Ready and
// Healthy (and the p50 and p95 of the Releases). Four phases:
//   1. one controller-manager and one observer on a fresh control plane: the burst;
//   2. two replicas of each (a and b) on another fresh control plane, once their shard Leases are spread:
//      the same burst; which replica holds which shard, how Releases, reconciles, applies and CPU split;
//   3. once all is steady, kill -9 of b's two processes: seconds until a holds each of b's shards (after
//      the kill, and after the Lease expired), and the applies after the kill (each applies a recorded
//      render again);
//   4. a third replica c joins and takes its share; N more Releases; once a third of them are Ready,
//      kill -9 of c's two processes: the hand-over, then every Release's ending (a lost verdict: not Ready,
//      not Healthy, no lastHealthy of the applied render, rolled back, failed, stuck Progressing) and the
//      ConfigMap applies beyond one per object, beside the keys c had noted pending and not recorded.
// Applies are counted by kube-apiserver (apiserver_request_total, verb APPLY, dry runs apart); each
// replica's share of them from its convoy_kube_requests_total (dry runs included). Prints each phase's
// JSON, then one summary.
// Env: CONVOY_BENCH_RELEASES (1000), CONVOY_BENCH_OBJECTS (10), CONVOY_BENCH_SHARDS (4),
// CONVOY_BENCH_SETTLE_SECONDS (300: how long after a kill every Release may take to end well).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_VERSION } from '../src/api/constants.ts';
import type { ReleaseInventory } from '../src/api/types.ts';
import { KubeClient } from '../src/kube/client.ts';
import { errorMessage } from '../src/lib/errors.ts';
import { installDefaultRules } from '../src/observer/health/loop/index.ts';
import {
  controllerLeaseName,
  isLeaseLive,
  observerLeaseName,
  readLease,
  shardOf,
  Transport,
} from '../src/runtime/index.ts';
import { memberLeaseName } from '../src/runtime/member.ts';
import { type ControlPlane, startControlPlane } from '../src/testenv/index.ts';
import { installCrds } from '../test/support/crds.ts';
import {
  type ConvoyChild,
  type ManagerProcess,
  startControllerManager,
  startObserver,
  wakeupsTo,
} from '../test/support/processes.ts';
import { LEASE_NS } from '../test/support/system.ts';
import { waitFor } from '../test/support/wait.ts';
import { controlPlaneCpu, cpDelta, figures, parseMetrics, type Sample, sample, total } from './procs.ts';
import { benchRelease, createReleases, ReleaseWatch, secs, sleep } from './release-burst.ts';
import { apiserverApplies, endings, pendingKeys, shares } from './shard-verdicts.ts';
import { spread } from './stats.ts';

const RELEASES = Number(process.env.CONVOY_BENCH_RELEASES ?? 1000);
const OBJECTS = Number(process.env.CONVOY_BENCH_OBJECTS ?? 10);
const SHARDS = Number(process.env.CONVOY_BENCH_SHARDS ?? 4);
const SETTLE_MS = Number(process.env.CONVOY_BENCH_SETTLE_SECONDS ?? 300) * 1000;
const NAMESPACES = 20;
const LEASE_SECONDS = 15;
const TIMEOUT_MS = 30 * 60_000;
const APPLIES = 'PATCH configmaps';

/** ConfigMap applies kube-apiserver served so far (real, dry runs, failed). */
const served = async (admin: KubeClient) =>
  apiserverApplies(
    await admin.transport.requestText({ method: 'GET', path: '/metrics', accept: 'text/plain' }),
    'configmaps',
  );

/** Between two reads of served(): the real applies beyond one per object, and the rest. */
function appliesBetween(a: Served, b: Served, objects: number) {
  const applies = b.applies - a.applies;
  return {
    applies,
    extraApplies: applies - objects,
    dryRuns: b.dryRuns - a.dryRuns,
    failedApplies: Object.fromEntries(
      Object.entries(b.failed)
        .map(([code, n]) => [code, n - (a.failed[code] ?? 0)] as const)
        .filter(([, n]) => n > 0),
    ),
  };
}
type Served = Awaited<ReturnType<typeof served>>;

const nsOf = (r: number) => `shards-${r % NAMESPACES}`;
const key = (r: number) => `${nsOf(r)}/r${r}`;
const release = (r: number) => benchRelease(r, `r${r}`, nsOf(r), OBJECTS, undefined);
const shardOfRelease = (r: number) => shardOf({ kind: 'namespace', namespace: nsOf(r) }, SHARDS);

type Kind = 'manager' | 'observer';
const LEASE_NAME: Readonly<Record<Kind, (shard: number) => string>> = {
  manager: controllerLeaseName,
  observer: observerLeaseName,
};

/** One replica of each process, paired: the observer wakes its own controller-manager. */
type Pair = { readonly name: string; readonly manager: ManagerProcess; readonly observer: ConvoyChild };
const identity = (kind: Kind, pair: string) => `${kind}-${pair}`;

async function startPair(cp: ControlPlane, work: string, name: string): Promise<Pair> {
  const common = {
    kubeconfigPath: cp.kubeconfigPath,
    leaseNamespace: LEASE_NS,
    leaseDuration: `${LEASE_SECONDS}s`,
    args: ['--shard-count', String(SHARDS)],
  };
  const manager = await startControllerManager({
    ...common,
    identity: identity('manager', name),
    tenancy: { mode: 'cluster' },
    gitCacheDir: join(work, `git-cache-${name}`),
  });
  try {
    const observer = await startObserver({
      ...common,
      identity: identity('observer', name),
      wakeups: wakeupsTo(manager),
    });
    return { name, manager, observer };
  } catch (err) {
    await manager.stop();
    throw err;
  }
}

/** A fresh control plane with convoy's CRDs, the default rules and the namespaces. */
async function freshPlane(): Promise<{ cp: ControlPlane; admin: KubeClient }> {
  const cp = await startControlPlane({});
  try {
    const admin = new KubeClient(cp.kubeConfig);
    await installCrds(cp.kubeConfig);
    for (const name of [LEASE_NS, ...Array.from({ length: NAMESPACES }, (_, i) => `shards-${i}`)])
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    await installDefaultRules(admin);
    return { cp, admin };
  } catch (err) {
    await cp.stop();
    throw err;
  }
}

/** The live holder of each shard Lease of one process kind (undefined: none). */
async function holders(t: Transport, kind: Kind): Promise<(string | undefined)[]> {
  return Promise.all(
    Array.from({ length: SHARDS }, async (_, s) => {
      const lease = await readLease(t, LEASE_NS, LEASE_NAME[kind](s));
      return isLeaseLive(lease, Date.now()) ? (lease?.spec?.holderIdentity ?? undefined) : undefined;
    }),
  );
}

/** Shards by holder, once every shard is held and the holders are the given replicas, evenly (±1). */
async function spreadLeases(
  t: Transport,
  kind: Kind,
  pairs: readonly Pair[],
): Promise<Record<string, number[]>> {
  const ids = pairs.map((p) => identity(kind, p.name));
  return waitFor(
    `${kind} shard Leases spread over ${ids.join(', ')}`,
    async () => {
      const h = await holders(t, kind);
      const by = Object.fromEntries(ids.map((id) => [id, h.flatMap((x, s) => (x === id ? [s] : []))]));
      const counts = Object.values(by).map((s) => s.length);
      const all = counts.reduce((a, b) => a + b, 0) === SHARDS;
      return all && Math.max(...counts) - Math.min(...counts) <= 1 ? by : false;
    },
    { timeoutMs: 6 * LEASE_SECONDS * 1000, intervalMs: 250 },
  );
}

/** Releases [from, to) by the replica holding their shard. */
function releasesByHolder(by: Readonly<Record<string, number[]>>, from: number, to: number) {
  const out: Record<string, number> = {};
  for (const [id, held] of Object.entries(by)) {
    out[id] = 0;
    for (let r = from; r < to; r++) if (held.includes(shardOfRelease(r))) out[id] += 1;
  }
  return out;
}

const delta = (a: Sample, b: Sample, pick: (s: Sample) => Readonly<Record<string, number>>, k?: string) =>
  k === undefined ? total(pick(b)) - total(pick(a)) : (pick(b)[k] ?? 0) - (pick(a)[k] ?? 0);

/** Per replica between two samples: Release reconciles (all controllers), applies, CPU seconds. */
function workOf(before: Readonly<Record<string, Sample>>, after: Readonly<Record<string, Sample>>) {
  const per = (f: (a: Sample, b: Sample) => number) =>
    Object.fromEntries(
      Object.keys(after).flatMap((id) => {
        const a = before[id];
        const b = after[id];
        return a === undefined || b === undefined ? [] : [[id, +f(a, b).toFixed(2)]];
      }),
    );
  return {
    reconciles: per((a, b) => delta(a, b, (s) => s.reconciles)),
    applyRequests: per((a, b) => delta(a, b, (s) => s.requests, APPLIES)),
    apiRequests: per((a, b) => delta(a, b, (s) => s.requests)),
    reconcileErrors: per((a, b) => delta(a, b, (s) => s.reconcileErrors)),
    retries: per((a, b) => delta(a, b, (s) => s.retries)),
    cpuSeconds: per((a, b) => b.cpuSeconds - a.cpuSeconds),
  };
}

async function sampleAll(pairs: readonly Pair[]): Promise<Record<string, Sample>> {
  const out: Record<string, Sample> = {};
  await Promise.all(
    pairs.flatMap((p) => [
      sample(p.manager).then((s) => {
        out[identity('manager', p.name)] = s;
      }),
      sample(p.observer).then((s) => {
        out[identity('observer', p.name)] = s;
      }),
    ]),
  );
  return out;
}

/** The burst of Releases [from, to) (all earlier ones already Ready and Healthy): seconds to all. */
async function burst(admin: KubeClient, watch: ReleaseWatch, from: number, to: number) {
  const t0 = performance.now();
  await createReleases(admin, from, to, release);
  const created = secs(performance.now() - t0);
  if (!(await watch.waitAll(to, t0, TIMEOUT_MS)))
    throw new Error(`after ${secs(performance.now() - t0)} s: ${watch.progress(to)}`);
  const of = (m: Map<string, number>) => {
    const s = spread(
      Array.from({ length: to - from }, (_, i) => secs((m.get(key(from + i)) ?? Number.NaN) - t0)),
    );
    return { p50: s.p50, p95: s.p95 };
  };
  return {
    createSeconds: created,
    toAllReadySeconds: secs(Math.max(...watch.ready.values()) - t0),
    toAllHealthySeconds: secs(Math.max(...watch.healthy.values()) - t0),
    readySeconds: of(watch.ready),
    healthySeconds: of(watch.healthy),
  };
}

async function stopAll(pairs: readonly Pair[], watch: ReleaseWatch | undefined, cp: ControlPlane) {
  await watch?.stop();
  for (const p of pairs)
    for (const c of [p.observer, p.manager])
      await c.stop().catch((err: unknown) => console.error(`stopping: ${errorMessage(err)}`));
  await cp.stop();
}

const tails = (pairs: readonly Pair[]) =>
  pairs
    .map(
      (p) =>
        `--- controller-manager ${p.name} ---\n${p.manager.log().slice(-3000)}\n` +
        `--- observer ${p.name} ---\n${p.observer.log().slice(-2000)}`,
    )
    .join('\n');

/** The burst of Releases [0, N) with the figures around it: applies, each replica's work, CPU, RSS. */
async function measuredBurst(
  cp: ControlPlane,
  admin: KubeClient,
  watch: ReleaseWatch,
  pairs: readonly Pair[],
) {
  const before = await sampleAll(pairs);
  const servedBefore = await served(admin);
  const cpBefore = await controlPlaneCpu(cp);
  const b = await burst(admin, watch, 0, RELEASES);
  const after = await sampleAll(pairs);
  const servedAfter = await served(admin);
  const cpAfter = await controlPlaneCpu(cp);
  return {
    ...b,
    ...appliesBetween(servedBefore, servedAfter, RELEASES * OBJECTS),
    ...workOf(before, after),
    controlPlaneCpuSeconds: cpDelta(cpBefore, cpAfter),
    peakRssMiB: Object.fromEntries(Object.entries(after).map(([id, s]) => [id, figures(s).peakRssMiB])),
  };
}

/** Phase 1: one replica of each. */
async function single(scratch: string) {
  const { cp, admin } = await freshPlane();
  const pairs: Pair[] = [];
  let watch: ReleaseWatch | undefined;
  try {
    pairs.push(await startPair(cp, scratch, 'a'));
    const t = new Transport(cp.kubeConfig);
    await spreadLeases(t, 'manager', pairs);
    await spreadLeases(t, 'observer', pairs);
    watch = new ReleaseWatch(cp.kubeConfig);
    await watch.start();
    const out = await measuredBurst(cp, admin, watch, pairs);
    console.log(JSON.stringify({ phase: 'one replica of each', ...out }, null, 2));
    return out;
  } catch (err) {
    console.error(tails(pairs));
    throw err;
  } finally {
    await stopAll(pairs, watch, cp);
  }
}

/** Waits until the work queues of both processes of each pair are empty. */
async function queuesEmpty(pairs: readonly Pair[]): Promise<void> {
  await waitFor(
    'work queues empty',
    async () => {
      for (const p of pairs)
        for (const c of [p.manager, p.observer]) if (parseMetrics(await c.metrics()).depth > 0) return false;
      return true;
    },
    { timeoutMs: TIMEOUT_MS, intervalMs: 500 },
  );
}

/**
 * kill -9 of both processes of `victim`: the shards they held, what the controller-manager had noted
 * pending and not recorded (the new owner applies those again: docs/design.md#fault-model), and their
 * last samples, taken just before.
 */
async function kill(t: Transport, admin: KubeClient, victim: Pair) {
  const heldBy = async (kind: Kind) =>
    (await holders(t, kind)).flatMap((h, s) => (h === identity(kind, victim.name) ? [s] : []));
  const held = { manager: await heldBy('manager'), observer: await heldBy('observer') };
  const last = await sampleAll([victim]);
  const at = performance.now();
  await Promise.all([victim.manager.kill(), victim.observer.kill()]);
  const inventories = await admin.list<ReleaseInventory>({
    apiVersion: API_VERSION,
    kind: 'ReleaseInventory',
  });
  const pending = pendingKeys(
    inventories.filter((inv) =>
      held.manager.includes(shardOf({ kind: 'namespace', namespace: inv.metadata.namespace ?? '' }, SHARDS)),
    ),
    'ConfigMap',
  );
  return { held, last, at, pendingConfigMaps: pending };
}

/** When a Lease of the killed replica expires: its last renewTime plus the duration (ms since the epoch). */
async function expiryOf(t: Transport, name: string): Promise<number | undefined> {
  const renewed = (await readLease(t, LEASE_NS, name))?.spec?.renewTime;
  return renewed === undefined || renewed === null ? undefined : Date.parse(renewed) + LEASE_SECONDS * 1000;
}

/**
 * Seconds from the kill until `survivor` holds each shard `victim` held, after that shard's Lease expired,
 * and after the victim's member Lease expired (while it is live the survivor leaves the victim its share:
 * src/runtime/balance.ts).
 */
async function takeovers(
  t: Transport,
  held: Readonly<Record<Kind, number[]>>,
  tKill: number,
  survivor: string,
  victim: string,
) {
  const killWall = Date.now() - (performance.now() - tKill);
  const after = (at: number | undefined, now: number) => (at === undefined ? null : secs(now - at));
  const out: Record<
    string,
    { afterKillSeconds: number; afterExpirySeconds: number | null; afterMemberExpirySeconds: number | null }
  > = {};
  await Promise.all(
    (['manager', 'observer'] as const).flatMap((kind) =>
      held[kind].map(async (s) => {
        const name = LEASE_NAME[kind](s);
        const group = LEASE_NAME[kind](0).replace(/-shard-0$/, '');
        const expiry = await expiryOf(t, name);
        const memberExpiry = await expiryOf(t, memberLeaseName(group, identity(kind, victim)));
        await waitFor(
          `${name} held by ${identity(kind, survivor)}`,
          async () => (await readLease(t, LEASE_NS, name))?.spec?.holderIdentity === identity(kind, survivor),
          { timeoutMs: 6 * LEASE_SECONDS * 1000, intervalMs: 100 },
        );
        const now = Date.now();
        out[name] = {
          afterKillSeconds: secs(now - killWall),
          afterExpirySeconds: after(expiry, now),
          afterMemberExpirySeconds: after(memberExpiry, now),
        };
      }),
    ),
  );
  const max = Math.max(...Object.values(out).map((h) => h.afterKillSeconds));
  return {
    maxAfterKillSeconds: max,
    withinLeaseDuration: max <= LEASE_SECONDS,
    // The Lease expires up to its duration after the kill; the survivor's next round (every third of the
    // duration, src/runtime/elector.ts) takes it.
    withinDurationAndOneRound: max <= (LEASE_SECONDS * 4) / 3,
    leases: out,
  };
}

/** Every Release's ending, once all end well or `deadline` (performance.now()) passed. */
async function settle(watch: ReleaseWatch, count: number, deadline: number) {
  const ended = () => endings(watch.informer.cache.list());
  let out = ended();
  while (out.counts.ok < count && performance.now() < deadline) {
    await sleep(500);
    out = ended();
  }
  return { endings: out, lostVerdicts: count - out.counts.ok };
}

/**
 * Phases 2 to 4: two replicas of each and the burst; kill -9 of replica b once all is steady; a third
 * replica c joins, and a second burst during which c is killed.
 */
async function replicated(scratch: string) {
  const { cp, admin } = await freshPlane();
  const pairs: Pair[] = [];
  let watch: ReleaseWatch | undefined;
  try {
    pairs.push(await startPair(cp, scratch, 'a'), await startPair(cp, scratch, 'b'));
    const [a, b] = pairs as [Pair, Pair];
    const t = new Transport(cp.kubeConfig);
    const leases = {
      manager: await spreadLeases(t, 'manager', pairs),
      observer: await spreadLeases(t, 'observer', pairs),
    };
    const w8 = new ReleaseWatch(cp.kubeConfig);
    watch = w8;
    await w8.start();

    // Phase 2: the burst over two replicas of each.
    const w = await measuredBurst(cp, admin, w8, pairs);
    const byKind = (rec: Readonly<Record<string, number>>, kind: Kind) =>
      Object.fromEntries(Object.entries(rec).filter(([id]) => id.startsWith(`${kind}-`)));
    const phase2 = {
      ...w,
      shardLeases: leases,
      releasesByShardHolder: releasesByHolder(leases.manager, 0, RELEASES),
      releaseShares: shares(releasesByHolder(leases.manager, 0, RELEASES)),
      reconcileShares: {
        manager: shares(byKind(w.reconciles, 'manager')),
        observer: shares(byKind(w.reconciles, 'observer')),
      },
      applyShares: shares(byKind(w.applyRequests, 'manager')),
    };
    console.log(JSON.stringify({ phase: 'two replicas of each', ...phase2 }, null, 2));

    // Phase 3: once steady, kill -9 replica b; every apply after that applies a recorded render again.
    await queuesEmpty(pairs);
    const steadyBefore = await sampleAll([a]);
    const servedSteady = await served(admin);
    const k3 = await kill(t, admin, b);
    const handover3 = await takeovers(t, k3.held, k3.at, 'a', 'b');
    await queuesEmpty([a]);
    const phase3 = {
      killedShards: k3.held,
      handover: handover3,
      ...appliesBetween(servedSteady, await served(admin), 0),
      ...(await settle(w8, RELEASES, k3.at + SETTLE_MS)),
      survivor: workOf(steadyBefore, await sampleAll([a])),
    };
    console.log(JSON.stringify({ phase: 'kill -9 of one replica of each, steady', ...phase3 }, null, 2));

    // Phase 4: replica c joins (a hands it its share); N more Releases; once a third of them are Ready,
    // kill -9 replica c.
    const servedJoin = await served(admin);
    pairs.push(await startPair(cp, scratch, 'c'));
    const c = pairs[2] as Pair;
    const leases4 = {
      manager: await spreadLeases(t, 'manager', [a, c]),
      observer: await spreadLeases(t, 'observer', [a, c]),
    };
    await queuesEmpty([a, c]);
    const before4 = await sampleAll([a, c]);
    const served4 = await served(admin);
    // a released c's share gracefully: c works those Releases again, applying nothing.
    const join = { shardLeases: leases4, ...appliesBetween(servedJoin, served4, 0) };
    const cp4 = await controlPlaneCpu(cp);
    const total2 = 2 * RELEASES;
    const t0 = performance.now();
    // Awaited after the kill: its error, if any, is rethrown then.
    const creating = createReleases(admin, RELEASES, total2, release).then(
      () => undefined,
      (err: unknown) => err,
    );
    await waitFor(
      'a third of the second burst Ready',
      async () => w8.ready.size >= RELEASES + Math.ceil(RELEASES / 3),
      { timeoutMs: TIMEOUT_MS, intervalMs: 20 },
    );
    const readyAtKill = w8.ready.size - RELEASES;
    const k4 = await kill(t, admin, c);
    const notReadyAtKill = Array.from({ length: RELEASES }, (_, i) => RELEASES + i).filter(
      (r) => k4.held.manager.includes(shardOfRelease(r)) && !w8.ready.has(key(r)),
    ).length;
    console.error(`killed replica c ${secs(k4.at - t0)} s into the second burst (${readyAtKill} Ready)`);
    const handover4 = await takeovers(t, k4.held, k4.at, 'a', 'c');
    const createFailed = await creating;
    if (createFailed !== undefined) throw createFailed;
    const done = await w8.waitAll(total2, t0, k4.at - t0 + SETTLE_MS);
    const tAll = performance.now();
    // lastHealthy may land after Healthy: settle waits for every Release to end well.
    const ended = await settle(w8, total2, k4.at + SETTLE_MS);
    const phase4 = {
      join,
      killedSecondsIntoBurst: secs(k4.at - t0),
      secondBurstReadyAtKill: readyAtKill,
      killedShards: k4.held,
      killedShardsReleasesNotReadyAtKill: notReadyAtKill,
      killedShardsPendingConfigMapsAtKill: k4.pendingConfigMaps,
      handover: handover4,
      allReadyAndHealthy: done,
      toAllReadyAndHealthySeconds: secs(tAll - t0),
      ...ended,
      ...appliesBetween(served4, await served(admin), RELEASES * OBJECTS),
      ...workOf(before4, { ...(await sampleAll([a])), ...k4.last }),
      controlPlaneCpuSeconds: cpDelta(cp4, await controlPlaneCpu(cp)),
    };
    console.log(JSON.stringify({ phase: 'kill -9 of one replica of each mid-burst', ...phase4 }, null, 2));
    return { phase2, phase3, phase4 };
  } catch (err) {
    console.error(tails(pairs));
    throw err;
  } finally {
    await stopAll(pairs, watch, cp);
  }
}

const scratch = await mkdtemp(join(tmpdir(), 'convoy-bench-shards-'));
try {
  const one = await single(scratch);
  const { phase2, phase3, phase4 } = await replicated(scratch);
  const slowest = (p: { toAllReadySeconds: number; toAllHealthySeconds: number }) =>
    Math.max(p.toAllReadySeconds, p.toAllHealthySeconds);
  console.log(
    JSON.stringify(
      {
        releases: RELEASES,
        objectsPerRelease: OBJECTS,
        shards: SHARDS,
        leaseDurationSeconds: LEASE_SECONDS,
        oneReplica: {
          toAllReadySeconds: one.toAllReadySeconds,
          toAllHealthySeconds: one.toAllHealthySeconds,
          healthySeconds: one.healthySeconds,
          cpuSeconds: one.cpuSeconds,
          controlPlaneCpuSeconds: one.controlPlaneCpuSeconds,
          extraApplies: one.extraApplies,
        },
        twoReplicas: {
          toAllReadySeconds: phase2.toAllReadySeconds,
          toAllHealthySeconds: phase2.toAllHealthySeconds,
          healthySeconds: phase2.healthySeconds,
          againstOneReplica: +(slowest(phase2) / slowest(one)).toFixed(2),
          shardLeases: phase2.shardLeases,
          releaseShares: phase2.releaseShares,
          reconcileShares: phase2.reconcileShares,
          applyShares: phase2.applyShares,
          cpuSeconds: phase2.cpuSeconds,
          controlPlaneCpuSeconds: phase2.controlPlaneCpuSeconds,
          extraApplies: phase2.extraApplies,
        },
        killSteady: {
          killedShards: phase3.killedShards,
          handover: phase3.handover,
          applies: phase3.applies,
          dryRuns: phase3.dryRuns,
          lostVerdicts: phase3.lostVerdicts,
        },
        joinOfC: { applies: phase4.join.applies, dryRuns: phase4.join.dryRuns },
        killMidBurst: {
          killedSecondsIntoBurst: phase4.killedSecondsIntoBurst,
          killedShards: phase4.killedShards,
          handover: phase4.handover,
          toAllReadyAndHealthySeconds: phase4.toAllReadyAndHealthySeconds,
          extraApplies: phase4.extraApplies,
          killedShardsPendingConfigMapsAtKill: phase4.killedShardsPendingConfigMapsAtKill,
          killedShardsReleasesNotReadyAtKill: phase4.killedShardsReleasesNotReadyAtKill,
          dryRuns: phase4.dryRuns,
          failedApplies: phase4.failedApplies,
          lostVerdicts: phase4.lostVerdicts,
          endings: phase4.endings.counts,
        },
      },
      null,
      2,
    ),
  );
} catch (err) {
  console.error(errorMessage(err));
  process.exitCode = 1;
} finally {
  await rm(scratch, { recursive: true, force: true });
}
