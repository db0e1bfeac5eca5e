// npm run bench:scale — convoy at thousands of Releases: convoy-controller-manager and convoy-observer as
// child processes (as test/support/system.ts starts them, without kwok: ConfigMaps need no nodes) on one
// local control plane, N Releases of M ConfigMaps each with a healthAssessment (the default rules), so
// both processes work; `--sizes 100,1000,3000,10000` runs each N on a fresh control plane, one after
// another, and prints the cost per Release of each size against the 1,000 one (`--plot FILE` writes an SVG
// of time and RSS against N). For each N, first the kubectl floor of the same objects. Prints: seconds from the first create to all Ready and to all Healthy; each
// process's RSS and CPU seconds (and kube-apiserver's and etcd's CPU) after the burst and after an idle
// window; over that window, API requests per minute per process (convoy_kube_requests_total, by
// resource) and reconciles per minute per controller; and how long one Release created half-way
// through the idle window takes to Ready and Healthy (with CONVOY_BENCH_INTERVAL set, it arrives while
// interval passes are queued: docs/design.md#work-queue-priority). With `--restart`, after the idle window
// both are killed with SIGKILL and started again (a new identity, as a new pod): the seconds until every
// Release was reconciled and assessed again (each holds its shard Lease, and its queue emptied after it
// gained it), and the new processes' requests and
// writes meanwhile by method and resource. Env: CONVOY_BENCH_RELEASES (2000,
// without --sizes), CONVOY_BENCH_OBJECTS (10), CONVOY_BENCH_NAMESPACES (20), CONVOY_BENCH_IDLE_SECONDS (120),
// CONVOY_BENCH_INTERVAL (syncPolicy.interval of every Release, unset: none), CONVOY_BENCH_CPU_PROF (a
// directory: both processes run with --cpu-prof and write their profiles there when stopped).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KubeClient } from '../src/kube/client.ts';
import { errorMessage } from '../src/lib/errors.ts';
import { installDefaultRules } from '../src/observer/health/loop/index.ts';
import { startControlPlane } from '../src/testenv/index.ts';
import { installCrds } from '../test/support/crds.ts';
import {
  type ConvoyChild,
  startControllerManager,
  startObserver,
  wakeupsTo,
} from '../test/support/processes.ts';
import { LEASE_NS } from '../test/support/system.ts';
import { floorOnItsOwnPlane } from './kubectl-floor.ts';
import {
  controlPlaneCpu,
  cpDelta,
  figures,
  parseMetrics,
  rates,
  type Sample,
  sample,
  scriptCpu,
  total,
} from './procs.ts';
import { BURST_SHAPE, benchRelease, createReleases, ReleaseWatch, secs, sleep } from './release-burst.ts';
import { scalePlot } from './scale-plot.ts';

const sizesArg = process.argv.indexOf('--sizes');
const SIZES: readonly number[] =
  sizesArg < 0
    ? [Number(process.env.CONVOY_BENCH_RELEASES ?? 2000)]
    : (process.argv[sizesArg + 1] ?? '').split(',').map(Number);
const plotArg = process.argv.indexOf('--plot');
const PLOT = plotArg < 0 ? undefined : process.argv[plotArg + 1];
/** After the idle window, kill -9 both processes, start them again and measure the recovery. */
const RESTART = process.argv.includes('--restart');
const { objects: OBJECTS, namespaces: NAMESPACES } = BURST_SHAPE;
const IDLE_SECONDS = Number(process.env.CONVOY_BENCH_IDLE_SECONDS ?? 120);
const INTERVAL = process.env.CONVOY_BENCH_INTERVAL;
const PROF = process.env.CONVOY_BENCH_CPU_PROF;
/** The controller-manager's --concurrency (its workers); unset: the default. */
const CONCURRENCY = process.env.CONVOY_BENCH_CONCURRENCY;
const TIMEOUT_MS = 30 * 60_000;

/** One size on a fresh control plane: its figures (what the JSON prints), or undefined when it failed. */
async function runSize(RELEASES: number): Promise<SizeFigures | undefined> {
  const cp = await startControlPlane({});
  const work = await mkdtemp(join(tmpdir(), 'convoy-bench-scale-'));
  const childEnv: Record<string, string> =
    PROF === undefined ? {} : { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${resolve(PROF)}` };
  let manager: Awaited<ReturnType<typeof startControllerManager>> | undefined;
  let observer: ConvoyChild | undefined;
  let releases: ReleaseWatch | undefined;
  try {
    const admin = new KubeClient(cp.kubeConfig);
    const floor = await floorOnItsOwnPlane({ ...BURST_SHAPE, releases: RELEASES, workDir: work });
    console.error(
      `${RELEASES} Releases: the kubectl floor took ${floor.seconds} s, CPU-s ${JSON.stringify(floor.cpuSeconds)}`,
    );
    await installCrds(cp.kubeConfig);
    for (const name of [LEASE_NS, ...Array.from({ length: NAMESPACES }, (_, i) => `scale-${i}`)]) {
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    await installDefaultRules(admin);
    // Production's Lease duration (15 s), so Lease renewals cost what they cost in a cluster.
    const startManager = (identity: string) =>
      startControllerManager({
        tenancy: { mode: 'cluster' },
        kubeconfigPath: cp.kubeconfigPath,
        identity,
        leaseNamespace: LEASE_NS,
        leaseDuration: '15s',
        gitCacheDir: join(work, 'git-cache'),
        env: CONCURRENCY === undefined ? childEnv : { ...childEnv, CONVOY_CONCURRENCY: CONCURRENCY },
      });
    const startObserverOf = (mgr: Awaited<ReturnType<typeof startControllerManager>>) =>
      startObserver({
        kubeconfigPath: cp.kubeconfigPath,
        leaseNamespace: LEASE_NS,
        leaseDuration: '15s',
        wakeups: wakeupsTo(mgr),
        env: childEnv,
      });
    manager = await startManager('bench-scale');
    observer = await startObserverOf(manager);
    let m = manager;
    let o = observer;
    // The control plane's CPU, and this script's (its watch of the Releases): where the cores went.
    const cpCpu = async () => ({ ...(await controlPlaneCpu(cp)), 'bench (this script)': scriptCpu() });

    // The bench's own view of the Releases: one watch, not a LIST of N every poll.
    releases = new ReleaseWatch(cp.kubeConfig);
    // Writes to Releases (status included) while a restart recovers: each changes the resourceVersion.
    let releaseWrites = 0;
    releases.informer.addHandlers({
      update: (old, n) => {
        if (old.metadata.resourceVersion !== n.metadata.resourceVersion) releaseWrites++;
      },
    });
    await releases.start();
    const { ready, healthy } = releases;

    const before = { manager: await sample(m), observer: await sample(o), controlPlane: await cpCpu() };
    const t0 = performance.now();
    await createReleases(admin, 0, RELEASES, (r) =>
      benchRelease(r, `r${r}`, `scale-${r % NAMESPACES}`, OBJECTS, INTERVAL),
    );
    const tCreated = performance.now();
    if (!(await releases.waitAll(RELEASES, t0, TIMEOUT_MS)))
      throw new Error(`after ${secs(performance.now() - t0)} s: ${releases.progress(RELEASES)}`);
    const last = (ts: Map<string, number>) => Math.max(...ts.values());
    const tReady = last(ready);
    const tHealthy = last(healthy);
    // The burst is over once both work queues are empty (timed rechecks may still be pending).
    for (;;) {
      const [a, b] = [parseMetrics(await m.metrics()), parseMetrics(await o.metrics())];
      if (a.depth === 0 && b.depth === 0) break;
      await sleep(500);
    }
    const burst = { manager: await sample(m), observer: await sample(o), controlPlane: await cpCpu() };
    console.error(`burst over after ${secs(burst.manager.at - t0)} s; idle window of ${IDLE_SECONDS} s`);
    await sleep((IDLE_SECONDS * 1000) / 2);
    const newcomer = `scale-0/newcomer`;
    const tNew = performance.now();
    await admin.create(benchRelease(RELEASES, 'newcomer', 'scale-0', OBJECTS, INTERVAL));
    await sleep((IDLE_SECONDS * 1000) / 2);
    const newcomerSeconds = (ts: Map<string, number>) => {
      const at = ts.get(newcomer);
      return at === undefined ? null : secs(at - tNew);
    };
    const idle = { manager: await sample(m), observer: await sample(o), controlPlane: await cpCpu() };
    const restart = RESTART
      ? await (async () => {
          const writesBefore = releaseWrites;
          const tKill = performance.now();
          await Promise.all([m.kill(), o.kill()]);
          // A new pod's name: its Leases are free only once the killed replica's expire (15 s).
          manager = await startManager('bench-scale-restarted');
          observer = await startObserverOf(manager);
          m = manager;
          o = observer;
          const tStarted = performance.now();
          // Steady again: each new process holds its shard Lease (the killed one's must run out first;
          // until then every key it works is skipped as not its own) and, after that, its queue is empty:
          // gaining the shard enqueues every key at once, so an empty queue seen after it means each
          // Release was reconciled, or assessed, by the new process.
          let tHeld: number | undefined;
          for (;;) {
            const [a, b] = [parseMetrics(await m.metrics()), parseMetrics(await o.metrics())];
            const held = a.shardsHeld >= 1 && b.shardsHeld >= 1;
            if (held && tHeld === undefined) tHeld = performance.now();
            else if (held && a.depth + b.depth === 0) break;
            if (performance.now() - tKill > TIMEOUT_MS) throw new Error('no steady state after the restart');
            await sleep(250);
          }
          const tSteady = performance.now();
          const [ma, ob] = [await sample(m), await sample(o)];
          const reads = new Set(['GET', 'LIST', 'WATCH']);
          const writes = (r: Readonly<Record<string, number>>) =>
            Object.fromEntries(Object.entries(r).filter(([k]) => !reads.has(k.split(' ')[0] ?? '')));
          return {
            killToSteadySeconds: secs(tSteady - tKill),
            killToShardsHeldSeconds: secs((tHeld ?? tSteady) - tKill),
            startToSteadySeconds: secs(tSteady - tStarted),
            releaseWritesSeen: releaseWrites - writesBefore,
            requests: { manager: ma.requests, observer: ob.requests },
            writes: { manager: writes(ma.requests), observer: writes(ob.requests) },
            reconciles: { manager: ma.reconciles, observer: ob.reconciles },
            peakRssMiB: { manager: ma.hwmMiB, observer: ob.hwmMiB },
            cpuSeconds: { manager: ma.cpuSeconds, observer: ob.cpuSeconds },
          };
        })()
      : undefined;
    // RSS per Release: after the idle window, over the process's RSS before the first create.
    const perRelease = (empty: Sample, from: Sample, to: Sample) => ({
      requestsPerMinute: +(rates(from, to).requestsPerMinute / RELEASES).toFixed(4),
      rssKiB: Math.round(((to.rssMiB - empty.rssMiB) * 1024) / RELEASES),
    });
    const figuresOfSize = {
      releases: RELEASES,
      managerConcurrency: CONCURRENCY === undefined ? 'default' : Number(CONCURRENCY),
      objectsPerRelease: OBJECTS,
      namespaces: NAMESPACES,
      syncPolicyInterval: INTERVAL ?? null,
      createSeconds: secs(tCreated - t0),
      createToAllReadySeconds: secs(tReady - t0),
      createToAllHealthySeconds: secs(tHealthy - t0),
      floorSeconds: floor.seconds,
      floorCpuSeconds: floor.cpuSeconds,
      ratioToFloor: +(secs(Math.max(tReady, tHealthy) - t0) / floor.seconds).toFixed(2),
      createToQueuesEmptySeconds: secs(burst.manager.at - t0),
      beforeCreate: { manager: figures(before.manager), observer: figures(before.observer) },
      afterBurst: {
        manager: figures(burst.manager),
        observer: figures(burst.observer),
        controlPlaneCpuSecondsDuringBurst: cpDelta(before.controlPlane, burst.controlPlane),
      },
      afterIdle: {
        idleSeconds: IDLE_SECONDS,
        manager: figures(idle.manager),
        observer: figures(idle.observer),
        controlPlaneCpuSecondsDuringIdle: cpDelta(burst.controlPlane, idle.controlPlane),
      },
      newReleaseDuringIdle: {
        toReadySeconds: newcomerSeconds(ready),
        toHealthySeconds: newcomerSeconds(healthy),
      },
      ...(restart === undefined ? {} : { restart }),
      steady: {
        manager: rates(burst.manager, idle.manager),
        observer: rates(burst.observer, idle.observer),
      },
      steadyPerRelease: {
        manager: perRelease(before.manager, burst.manager, idle.manager),
        observer: perRelease(before.observer, burst.observer, idle.observer),
      },
      curve: {
        seconds: secs(Math.max(tReady, tHealthy) - t0),
        apiRequests:
          total(burst.manager.requests) -
          total(before.manager.requests) +
          total(burst.observer.requests) -
          total(before.observer.requests),
        cpuSeconds: +(
          burst.manager.cpuSeconds -
          before.manager.cpuSeconds +
          burst.observer.cpuSeconds -
          before.observer.cpuSeconds
        ).toFixed(2),
        peakRssMiB: { manager: idle.manager.hwmMiB, observer: idle.observer.hwmMiB },
      },
    };
    console.log(JSON.stringify(figuresOfSize, null, 2));
    return figuresOfSize;
  } catch (err) {
    // fetch's own message ("fetch failed") says nothing; its cause says what failed.
    const cause = (err as { readonly cause?: unknown }).cause;
    console.error(`${errorMessage(err)}${cause === undefined ? '' : ` (${errorMessage(cause)})`}`);
    console.error(
      `--- controller-manager ---\n${manager?.log().slice(-4000)}\n--- observer ---\n${observer?.log().slice(-3000)}`,
    );
    process.exitCode = 1;
    return undefined;
  } finally {
    releases?.stop();
    for (const c of [observer, manager])
      await c?.stop().catch((err: unknown) => console.error(`stopping: ${errorMessage(err)}`));
    await cp.stop();
    await rm(work, { recursive: true, force: true });
  }
}

type SizeFigures = {
  readonly releases: number;
  readonly floorSeconds: number;
  readonly ratioToFloor: number;
  readonly curve: {
    readonly seconds: number;
    readonly apiRequests: number;
    readonly cpuSeconds: number;
    readonly peakRssMiB: { readonly manager: number; readonly observer: number };
  };
};

const results: SizeFigures[] = [];
for (const n of SIZES) {
  const r = await runSize(n);
  if (r === undefined) break;
  results.push(r);
}
if (results.length > 1) {
  // The cost per Release of each size against the 1,000 one (or the smallest run when 1,000 was not).
  const base = results.find((r) => r.releases === 1000) ?? (results[0] as SizeFigures);
  const per = (r: SizeFigures, v: (c: SizeFigures['curve']) => number) =>
    v(r.curve) / r.releases / (v(base.curve) / base.releases);
  console.log(
    JSON.stringify(
      {
        perReleaseAgainst: base.releases,
        sizes: results.map((r) => ({
          releases: r.releases,
          seconds: r.curve.seconds,
          ratioToFloor: r.ratioToFloor,
          timePerRelease: +per(r, (c) => c.seconds).toFixed(2),
          requestsPerRelease: +per(r, (c) => c.apiRequests).toFixed(2),
          cpuPerRelease: +per(r, (c) => c.cpuSeconds).toFixed(2),
          peakRssMiB: r.curve.peakRssMiB,
        })),
      },
      null,
      2,
    ),
  );
}
if (PLOT !== undefined && results.length > 0) {
  await writeFile(
    PLOT,
    scalePlot(
      results.map((r) => ({
        releases: r.releases,
        seconds: r.curve.seconds,
        floorSeconds: r.floorSeconds,
        ...r.curve.peakRssMiB,
      })),
    ),
  );
  console.error(`plot written to ${PLOT}`);
}
