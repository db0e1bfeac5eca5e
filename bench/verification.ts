// npm run bench:verification — what verification costs a fleet (docs/design.md#verification): N Releases
// of one ConfigMap each, worked by convoy-controller-manager and convoy-observer as child processes on one
// local control plane, with a real Prometheus scraping the traffic simulator behind a counting proxy.
// (1) The Releases roll out without spec.verification; an idle window gives the baseline. (2) Each gets a
// new render and spec.verification: two Prometheus checks whose queries are the same for every Release
// (a fleet of one app); `--per-release-query` adds a third whose query names its Release (the unshared
// cost). Prints: the queries per minute that reach Prometheus (shared and per-Release, and Prometheus's
// own count); the observer's (and the controller-manager's, kube-apiserver's, Prometheus's) CPU seconds
// per minute, RSS and API requests per minute in the idle window, while every Release soaks (when the
// soak outlasts the spread of soak starts) and over the whole second phase; per Release the time from
// the end of its soak (verification.startedAt + initialDelay + soak) to its rollout's Succeeded,
// p50/p95/max, as the bench saw it, by rollout.finishedAt, and to the observer's verification Passed
// (its part of the lag); the load average beside every window.
// Usage: see USAGE in ./verification-args.ts (default 1,000 Releases, soak 120 s, interval 30 s).
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_VERSION, PLURAL_INVENTORIES, PLURAL_RELEASES } from '../src/api/constants.ts';
import type { Release, ReleaseInventory } from '../src/api/types.ts';
import { KubeClient } from '../src/kube/client.ts';
import { errorMessage } from '../src/lib/errors.ts';
import { installDefaultRules } from '../src/observer/health/loop/index.ts';
import { Informer, type KubeObject, Transport } from '../src/runtime/index.ts';
import { startControlPlane } from '../src/testenv/index.ts';
import { startPrometheus, type TestPrometheus } from '../src/testenv/prometheus.ts';
import { startTrafficSim, type TrafficSim } from '../src/testenv/traffic-sim.ts';
import { installCrds } from '../test/support/crds.ts';
import {
  type ConvoyChild,
  startControllerManager,
  startObserver,
  wakeupsTo,
} from '../test/support/processes.ts';
import { mergePatch } from '../test/support/release.ts';
import { DEFAULT_HEALTH, LEASE_NS } from '../test/support/system.ts';
import { configMapManifests } from './fixtures.ts';
import { parseMetrics, proc, rates, sample } from './procs.ts';
import { type CountingProxy, startCountingProxy } from './prom-proxy.ts';
import { spread } from './stats.ts';
import { parseVerificationArgs, soakEndLagMs, type VerificationBenchArgs } from './verification-args.ts';

let args: VerificationBenchArgs;
try {
  args = parseVerificationArgs(process.argv.slice(2));
} catch (err) {
  console.error(errorMessage(err));
  process.exit(2);
}
const N = args.releases;
const NAMESPACES = Math.min(20, N);
const CREATE_PARALLEL = 16;
const TIMEOUT_MS = 30 * 60_000;
const ERROR_RATIO = 'sum(rate(http_requests_total{code="500"}[1m])) / sum(rate(http_requests_total[1m]))';
const LATENCY_P95 = 'histogram_quantile(0.95, sum by (le) (rate(http_request_duration_seconds_bucket[1m])))';
const SHARED = new Set([ERROR_RATIO, LATENCY_P95]);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const secs = (ms: number) => +(ms / 1000).toFixed(3);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const nsOf = (r: number) => `verify-${r % NAMESPACES}`;

type R = KubeObject & Release;
type Inv = KubeObject & ReleaseInventory;

function verification(address: string, key: string): NonNullable<Release['spec']['verification']> {
  const check = (name: string, query: string, successCondition: string) => ({
    name,
    prometheus: { address, query, timeout: '10s' },
    successCondition,
    failureLimit: 0,
    // A slow answer on a loaded machine is not what this bench measures: it must not hold a rollout.
    inconclusiveLimit: 3,
  });
  return {
    soak: `${args.soakSeconds}s`,
    interval: `${args.intervalSeconds}s`,
    initialDelay: `${args.initialDelaySeconds}s`,
    checks: [
      check('error-rate', ERROR_RATIO, 'result[0] <= 0.05'),
      check('latency-p95', LATENCY_P95, 'result[0] < 0.5'),
      ...(args.perReleaseQuery
        ? [
            check(
              'own-errors',
              `sum(rate(http_requests_total{code="500",release!="${key}"}[1m]))`,
              'result[0] >= 0',
            ),
          ]
        : []),
    ],
  };
}

const cp = await startControlPlane({});
const admin = new KubeClient(cp.kubeConfig);
const work = await mkdtemp(join(tmpdir(), 'convoy-bench-verification-'));
const children: ConvoyChild[] = [];
const informers: Informer<KubeObject>[] = [];
let sim: TrafficSim | undefined;
let prom: TestPrometheus | undefined;
let proxy: CountingProxy | undefined;
// Interrupted (Ctrl-C): the convoy processes go too; the control plane and Prometheus have watchdogs.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    for (const c of children) c.proc.kill('SIGKILL');
    process.exit(130);
  });
/** Prometheus's own count of instant queries (its /metrics), beside the proxy's. */
async function prometheusOwnCount(url: string): Promise<number> {
  const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  return [
    ...text.matchAll(/^prometheus_http_requests_total\{[^}]*handler="\/api\/v1\/query"[^}]*\} (\S+)$/gm),
  ].reduce((a, m) => a + Number(m[1]), 0);
}
try {
  const loadAtStart = load();
  sim = await startTrafficSim({ requestsPerSecond: 50 });
  prom = await startPrometheus({ targets: [sim.target], scrapeIntervalMs: 5000 });
  const counting = await startCountingProxy(prom.url);
  proxy = counting;
  await installCrds(cp.kubeConfig);
  for (const name of [LEASE_NS, ...Array.from({ length: NAMESPACES }, (_, i) => `verify-${i}`)])
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await installDefaultRules(admin);
  const manager = await startControllerManager({
    tenancy: { mode: 'cluster' },
    kubeconfigPath: cp.kubeconfigPath,
    identity: 'bench-verification',
    leaseNamespace: LEASE_NS,
    leaseDuration: '15s',
    gitCacheDir: join(work, 'git-cache'),
  });
  children.push(manager);
  const observer = await startObserver({
    kubeconfigPath: cp.kubeconfigPath,
    leaseNamespace: LEASE_NS,
    leaseDuration: '15s',
    wakeups: wakeupsTo(manager),
  });
  children.push(observer);

  // The bench's view: one watch of Releases and one of inventories, times taken as events arrive.
  const firstRef = new Map<string, string>();
  const done = new Map<string, { at: number; finishedAt: string; state: string; message: string }>();
  const soaks = new Map<string, { startedAt: string; seenAt: number; passedAt?: string }>();
  const releases = new Informer<R>(new Transport(cp.kubeConfig), {
    path: `/apis/${API_VERSION}/${PLURAL_RELEASES}`,
  });
  const seeRelease = (r: R) => {
    const k = `${r.metadata.namespace}/${r.metadata.name}`;
    const ro = r.status?.rollout;
    if (ro === undefined) return;
    const first = firstRef.get(k);
    if (first === undefined) {
      if (ro.state === 'Succeeded') firstRef.set(k, ro.renderRef);
      return;
    }
    const final = ro.state === 'Succeeded' || ro.state === 'RolledBack' || ro.state === 'Failed';
    if (ro.renderRef !== first && final && !done.has(k))
      done.set(k, {
        at: Date.now(),
        finishedAt: ro.finishedAt ?? '',
        state: ro.state,
        message: ro.message ?? '',
      });
  };
  releases.addHandlers({ add: seeRelease, update: (_o, n) => seeRelease(n) });
  const inventories = new Informer<Inv>(new Transport(cp.kubeConfig), {
    path: `/apis/${API_VERSION}/${PLURAL_INVENTORIES}`,
  });
  const seeInventory = (i: Inv) => {
    const k = `${i.metadata.namespace}/${i.metadata.name}`;
    const v = i.verification;
    // The latest start of the soak counts: the one whose end the rollout's Succeeded follows.
    if (v === undefined) return;
    // The latest start of the soak counts: the one whose end the rollout's Succeeded follows. The
    // observer's finishedAt of a Passed verification splits the lag into its part and the controller's.
    const passedAt = v.phase === 'Passed' ? v.finishedAt : undefined;
    const prior = soaks.get(k);
    if (prior?.startedAt !== v.startedAt || prior.passedAt !== passedAt)
      soaks.set(k, { startedAt: v.startedAt, seenAt: prior?.seenAt ?? Date.now(), passedAt });
  };
  inventories.addHandlers({ add: seeInventory, update: (_o, n) => seeInventory(n) });
  for (const i of [releases, inventories] as Informer<KubeObject>[]) {
    informers.push(i);
    i.start();
    await i.waitForSync();
  }

  const cpPid = (name: string) => cp.processes().find((p) => p.name === name)?.pid ?? 0;
  const queries = () => proxy?.counts() ?? new Map<string, number>();
  const snap = async () => ({
    at: Date.now(),
    observer: await sample(observer),
    manager: await sample(manager),
    apiserverCpu: (await proc(cpPid('kube-apiserver'))).cpuSeconds,
    prometheusCpu: (await proc(prom?.pid ?? 0)).cpuSeconds,
    queries: queries(),
    load: load(),
  });
  type Snap = Awaited<ReturnType<typeof snap>>;
  const queriesBetween = (a: Snap, b: Snap) => {
    let shared = 0;
    let perRelease = 0;
    for (const [q, n] of b.queries) {
      const d = n - (a.queries.get(q) ?? 0);
      if (SHARED.has(q)) shared += d;
      else perRelease += d;
    }
    const min = (b.at - a.at) / 60_000;
    return {
      sharedPerMinute: +(shared / min).toFixed(1),
      perReleasePerMinute: +(perRelease / min).toFixed(1),
      totalPerMinute: +((shared + perRelease) / min).toFixed(1),
    };
  };
  const window = (a: Snap, b: Snap) => {
    const min = (b.at - a.at) / 60_000;
    const obs = rates(a.observer, b.observer);
    return {
      seconds: secs(b.at - a.at),
      prometheusQueries: queriesBetween(a, b),
      observer: {
        cpuSecondsPerMinute: obs.cpuSecondsPerMinute,
        rssMiB: b.observer.rssMiB,
        peakRssMiB: b.observer.hwmMiB,
        apiRequestsPerMinute: obs.requestsPerMinute,
        apiRequestsPerMinuteByResource: obs.requestsPerMinuteByResource,
      },
      managerCpuSecondsPerMinute: rates(a.manager, b.manager).cpuSecondsPerMinute,
      kubeApiserverCpuSecondsPerMinute: +((b.apiserverCpu - a.apiserverCpu) / min).toFixed(2),
      prometheusCpuSecondsPerMinute: +((b.prometheusCpu - a.prometheusCpu) / min).toFixed(2),
      loadAverage: b.load,
    };
  };
  const until = async (what: string, ok: () => boolean) => {
    const t0 = Date.now();
    for (let lastLog = t0; !ok(); await sleep(200)) {
      const now = Date.now();
      if (now - t0 > TIMEOUT_MS) throw new Error(`${what}: not after ${secs(now - t0)} s`);
      if (now - lastLog > 15_000) {
        lastLog = now;
        console.error(
          `${what}: ${secs(now - t0)} s, first Succeeded ${firstRef.size}, soaking ${soaks.size}, done ${done.size} of ${N} (load ${load()})`,
        );
      }
    }
  };
  const queuesEmpty = async () => {
    for (;;) {
      const [a, b] = [parseMetrics(await manager.metrics()), parseMetrics(await observer.metrics())];
      if (a.depth === 0 && b.depth === 0) return;
      await sleep(500);
    }
  };
  const forEachRelease = async (f: (r: number) => Promise<unknown>) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CREATE_PARALLEL }, async () => {
        for (let r = next++; r < N; r = next++) await f(r);
      }),
    );
  };

  // (1) N Releases without verification: rolled out, then an idle window (the baseline).
  const created = await snap();
  const t1 = Date.now();
  await forEachRelease((r) =>
    admin.create<Release>({
      apiVersion: API_VERSION,
      kind: 'Release',
      metadata: { name: `r${r}`, namespace: nsOf(r) },
      spec: {
        source: { inline: { manifests: configMapManifests(r, 1) } },
        render: { targetNamespace: nsOf(r) },
        healthAssessment: DEFAULT_HEALTH,
        // status.rollout (and its Succeeded) exists only with a failurePolicy.
        failurePolicy: { deadline: '20m' },
      },
    } as Release),
  );
  await until('rollouts without verification', () => firstRef.size === N);
  const firstRollout = secs(Date.now() - t1);
  await queuesEmpty();
  const firstRolloutCpu = (await sample(observer)).cpuSeconds - created.observer.cpuSeconds;
  console.error(`${N} Releases Succeeded in ${firstRollout} s; idle window of ${args.idleSeconds} s`);
  const idle0 = await snap();
  await sleep(args.idleSeconds * 1000);
  const idle1 = await snap();

  // (2) A new render with spec.verification for each: its soak starts once its ConfigMap is Healthy.
  const t2 = Date.now();
  await forEachRelease((r) =>
    mergePatch(
      admin,
      { apiVersion: API_VERSION, kind: 'Release', namespace: nsOf(r), name: `r${r}` },
      {
        spec: {
          source: {
            inline: { manifests: configMapManifests(r, 1).replace('\ndata:\n', '\ndata:\n  render: "2"\n') },
          },
          verification: verification(counting.url, `${nsOf(r)}/r${r}`),
        },
      },
    ),
  );
  await until('every soak started', () => soaks.size === N || done.size > 0);
  const everySoaking = done.size === 0;
  const allSoaking = await snap();
  await until('the first soak ended', () => done.size > 0);
  const firstDone = await snap();
  await until('every rollout with verification finished', () => done.size === N);
  const allDone = await snap();
  await queuesEmpty();

  const soakMs = args.soakSeconds * 1000;
  const delayMs = args.initialDelaySeconds * 1000;
  const seen: number[] = [];
  const byFinishedAt: number[] = [];
  const observerPassed: number[] = [];
  const notSucceeded: string[] = [];
  for (const [k, d] of done) {
    const s = soaks.get(k);
    if (d.state !== 'Succeeded' || s === undefined) {
      notSucceeded.push(`${k}: ${d.state} ${d.message}`);
      continue;
    }
    seen.push(secs(soakEndLagMs(s.startedAt, delayMs, soakMs, d.at)));
    byFinishedAt.push(secs(soakEndLagMs(s.startedAt, delayMs, soakMs, Date.parse(d.finishedAt))));
    if (s.passedAt !== undefined)
      observerPassed.push(secs(soakEndLagMs(s.startedAt, delayMs, soakMs, Date.parse(s.passedAt))));
  }
  const soakStarts = [...soaks.values()].map((s) => Date.parse(s.startedAt));
  const span = { at: Math.min(...soakStarts) } as const;
  const allSoakingWindow =
    everySoaking && firstDone.at > allSoaking.at
      ? window(allSoaking, firstDone)
      : `none: the first soak ended before the last began (soak ${args.soakSeconds} s is shorter than the spread of soak starts); use a longer --soak`;
  console.log(
    JSON.stringify(
      {
        releases: N,
        checksPerRelease: args.perReleaseQuery ? 3 : 2,
        soakSeconds: args.soakSeconds,
        intervalSeconds: args.intervalSeconds,
        initialDelaySeconds: args.initialDelaySeconds,
        loadAverage: { atStart: loadAtStart, atEnd: load() },
        rolloutWithoutVerificationSeconds: firstRollout,
        patchToAllSucceededSeconds: secs(allDone.at - t2),
        soakStartsSpreadSeconds: secs(Math.max(...soakStarts) - span.at),
        idleWithoutVerification: window(idle0, idle1),
        whileEverySoakRuns: allSoakingWindow,
        // The whole second phase: the new renders' rollouts, every soak, every verdict.
        patchToAllSucceeded: window(idle1, allDone),
        firstSoakStartToLastSucceeded: {
          prometheusQueries: queriesBetween({ ...idle1, at: span.at }, allDone),
          observerPeakRssMiB: allDone.observer.hwmMiB,
        },
        observerCpuSeconds: {
          rolloutWithoutVerification: +firstRolloutCpu.toFixed(2),
          rolloutWithVerification: +(allDone.observer.cpuSeconds - idle1.observer.cpuSeconds).toFixed(2),
        },
        prometheusCalls: {
          countedByPrometheus: await prometheusOwnCount(prom.url),
          byQuery: Object.fromEntries([...allDone.queries].filter(([q]) => SHARED.has(q))),
          perReleaseQueries: [...allDone.queries.keys()].filter((q) => !SHARED.has(q)).length,
          perReleaseCalls: [...allDone.queries]
            .filter(([q]) => !SHARED.has(q))
            .reduce((a, [, n]) => a + n, 0),
        },
        soakEndToSucceededSeconds: {
          target: '≤ 1',
          seenByBench: spread(seen),
          byRolloutFinishedAt: { ...spread(byFinishedAt), note: 'finishedAt has whole seconds' },
          // Soak end → the observer's verification Passed: the part of the lag before the controller's verdict.
          toObserverPassed: spread(observerPassed),
        },
        notSucceeded: notSucceeded.slice(0, 10),
        notSucceededCount: notSucceeded.length,
      },
      null,
      2,
    ),
  );
  const f = (x: number) => x.toFixed(3);
  const lag = spread(seen);
  const soaking = typeof allSoakingWindow === 'string' ? undefined : allSoakingWindow;
  const idle = window(idle0, idle1);
  const phase2 = window(idle1, allDone);
  const passed = spread(observerPassed);
  console.log(
    [
      `bench:verification: ${N} Releases × ${args.perReleaseQuery ? '2 shared + 1 per-Release' : '2'} Prometheus checks, soak ${args.soakSeconds} s, interval ${args.intervalSeconds} s; load average ${loadAtStart} at the start, ${load()} at the end`,
      soaking === undefined
        ? `  while every soak ran: no such window (${allSoakingWindow})`
        : `  while every soak ran (${soaking.seconds} s): ${soaking.prometheusQueries.sharedPerMinute} shared + ${soaking.prometheusQueries.perReleasePerMinute} per-Release queries/min reached Prometheus; observer ${soaking.observer.cpuSecondsPerMinute} CPU-s/min, RSS ${soaking.observer.rssMiB} MiB (idle without verification: ${idle.observer.cpuSecondsPerMinute} CPU-s/min, RSS ${idle.observer.rssMiB} MiB)`,
      `  from the first new render to all Succeeded (${phase2.seconds} s): ${phase2.prometheusQueries.totalPerMinute} queries/min reached Prometheus; observer ${phase2.observer.cpuSecondsPerMinute} CPU-s/min, peak RSS ${phase2.observer.peakRssMiB} MiB`,
      `  soak end → rollout Succeeded (target ≤ 1 s): p50 ${f(lag.p50)} s, p95 ${f(lag.p95)} s, max ${f(lag.max)} s over ${lag.n} Releases (→ observer's Passed: p50 ${f(passed.p50)} s, p95 ${f(passed.p95)} s, max ${f(passed.max)} s)`,
    ].join('\n'),
  );
} catch (err) {
  console.error(errorMessage(err));
  for (const [name, c] of children.map((c, i) => [i === 0 ? 'controller-manager' : 'observer', c] as const))
    console.error(`--- ${name} ---\n${c.log().slice(-4000)}`);
  process.exitCode = 1;
} finally {
  for (const i of informers) await i.stop();
  for (const c of children.reverse())
    await c.stop().catch((err: unknown) => console.error(`stopping: ${errorMessage(err)}`));
  await proxy?.stop().catch((err: unknown) => console.error(`proxy: ${errorMessage(err)}`));
  await prom?.stop();
  await sim?.stop();
  await cp.stop();
  await rm(work, { recursive: true, force: true });
}
