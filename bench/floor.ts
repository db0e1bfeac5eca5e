// npm run bench:floor — convoy against the floor, on one fresh control plane: (a) the workload's
// ConfigMaps applied server-side by kubectl (8 in parallel), then (b) the same workload as Releases
// (inline sources, a healthAssessment) worked by convoy-controller-manager and convoy-observer as child
// processes. Prints for each: seconds to all applied (Ready and Healthy for convoy), convoy's ratio to
// the floor, kube-apiserver's requests by verb and resource (its /metrics) and per object, CPU seconds of
// kube-apiserver and of each convoy process, every process's CPU seconds over the burst against the
// machine's cores (is the burst CPU-bound, and where do the cores go), the convoy processes' peak RSS;
// then a steady window (requests per minute, CPU %), and from a pod turning Ready to its Release's
// rollout Succeeded (median of 5 Deployments).
// Also, per Release, the lag from Healthy=True (the observer's) to status.lastHealthy naming its render
// (the controller's): what a rollback falls back to trails the health it rests on by that much.
// Default 200 Releases × 10 ConfigMaps in 20 namespaces, 60 s steady; `--full`: 1,000 × 10, 300 s.
// `--git`: every Release's source is one git repository served over smart HTTP (git http-backend), a
// path per Release, interval 10m, instead of inline manifests.
// Env: CONVOY_BENCH_RELEASES, CONVOY_BENCH_OBJECTS, CONVOY_BENCH_STEADY_SECONDS, CONVOY_BENCH_CONCURRENCY, CONVOY_BENCH_NODE_OPTIONS
// (Node flags of both convoy processes, e.g. heap limits); CONVOY_BENCH_HEAP_SNAPSHOTS=<dir>
// writes a heap snapshot of each convoy process into <dir> when the burst is over (what holds the memory);
// CONVOY_BENCH_LOGS=<dir> keeps both processes' logs there;
// CONVOY_BENCH_APISERVER_PROFILE=<file> writes kube-apiserver's CPU profile of the burst's first 60 s
// (pprof, read with `go tool pprof -top <file>`): where the apiserver's CPU goes.
// Dry-run requests are counted apart ("APPLY configmaps (dry run)"), and each process's requests by resource.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_VERSION, PLURAL_RELEASES } from '../src/api/constants.ts';
import type { Release } from '../src/api/types.ts';
import { KubeClient } from '../src/kube/client.ts';
import { errorMessage } from '../src/lib/errors.ts';
import { installDefaultRules } from '../src/observer/health/loop/index.ts';
import { makeRepo, serveGitHttp } from '../src/render/git/testsupport.ts';
import { Informer, type KubeObject, Transport } from '../src/runtime/index.ts';
import { binaryPath, ensureBinaries } from '../src/testenv/build.ts';
import { startControlPlane, TEST_ANNOTATION_READY_DELAY, TEST_LABEL_DELAY } from '../src/testenv/index.ts';
import { installCrds } from '../test/support/crds.ts';
import { startControllerManager, startObserver, wakeupsTo } from '../test/support/processes.ts';
import { DEFAULT_HEALTH, LEASE_NS } from '../test/support/system.ts';
import { configMapManifests } from './fixtures.ts';
import {
  apiserverRequests as apiserverRequestsOf,
  KUBECTL_PARALLEL,
  kubectlFloor,
  requestDelta,
} from './kubectl-floor.ts';
import { parseMetrics, proc, rates, reconcileFigures, type Sample, sample, scriptCpu } from './procs.ts';

const FULL = process.argv.includes('--full');
const GIT = process.argv.includes('--git');
const RELEASES = Number(process.env.CONVOY_BENCH_RELEASES ?? (FULL ? 1000 : 200));
const OBJECTS = Number(process.env.CONVOY_BENCH_OBJECTS ?? 10);
const NAMESPACES = 20;
const STEADY_SECONDS = Number(process.env.CONVOY_BENCH_STEADY_SECONDS ?? (FULL ? 300 : 60));
const PODS = 5;
const TIMEOUT_MS = 60 * 60_000;
const HEAP_SNAPSHOTS = process.env.CONVOY_BENCH_HEAP_SNAPSHOTS;
const APISERVER_PROFILE = process.env.CONVOY_BENCH_APISERVER_PROFILE;
const PROFILE_SECONDS = 60;
/** CONVOY_BENCH_LOGS=<dir>: both convoy processes' logs are written there at the end. */
const LOGS = process.env.CONVOY_BENCH_LOGS;
/** Node flags of the convoy processes: CONVOY_BENCH_NODE_OPTIONS (e.g. heap limits), a heap snapshot on SIGUSR2. */
const nodeOptions = [
  process.env.CONVOY_BENCH_NODE_OPTIONS ?? '',
  HEAP_SNAPSHOTS === undefined ? '' : `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${HEAP_SNAPSHOTS}`,
]
  .join(' ')
  .trim();
const childEnv: Record<string, string> = nodeOptions === '' ? {} : { NODE_OPTIONS: nodeOptions };
/** CONVOY_BENCH_CONCURRENCY: --concurrency of both processes (their default otherwise). */
const CONCURRENCY = process.env.CONVOY_BENCH_CONCURRENCY;
const childArgs = CONCURRENCY === undefined ? {} : { args: ['--concurrency', CONCURRENCY] };

const secs = (ms: number) => +(ms / 1000).toFixed(1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? Number.NaN;

const cp = await startControlPlane({ workloads: true, nodes: 1, profiling: APISERVER_PROFILE !== undefined });
const work = await mkdtemp(join(tmpdir(), 'convoy-bench-floor-'));
const admin = new KubeClient(cp.kubeConfig);
const children: { stop: () => Promise<unknown>; log: () => string }[] = [];
const informers: Informer<KubeObject>[] = [];

const apiserverRequests = () => apiserverRequestsOf(admin);
const apiserverCpu = async () =>
  (await proc(cp.processes().find((p) => p.name === 'kube-apiserver')?.pid ?? 0)).cpuSeconds;
/** CPU seconds so far of each control-plane process by name, and of this script: where the cores go. */
async function controlPlaneCpu(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const p of cp.processes()) {
    try {
      out[p.name] = (out[p.name] ?? 0) + (await proc(p.pid)).cpuSeconds;
    } catch (err) {
      // A process that exited (the watchdog of a stopped plane) has no /proc entry, so no figures.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  out['bench (this script)'] = scriptCpu();
  return out;
}

const delta = requestDelta;

/** kube-apiserver's CPU profile of the next PROFILE_SECONDS into `file` (its /debug/pprof, through kubectl). */
async function profileApiserver(file: string): Promise<void> {
  const kubectl = binaryPath(await ensureBinaries(), 'kubectl');
  const raw = `/debug/pprof/profile?seconds=${PROFILE_SECONDS}`;
  const args = ['--kubeconfig', cp.kubeconfigPath, 'get', '--raw', raw, '--request-timeout', '0'];
  await new Promise<void>((resolve, reject) => {
    const child = spawn(kubectl, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: (PROFILE_SECONDS + 60) * 1000,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? writeFile(file, Buffer.concat(out)).then(() => {
            console.error(`kube-apiserver CPU profile in ${file} (go tool pprof -top ${file})`);
            resolve();
          }, reject)
        : reject(new Error(`kubectl get --raw ${raw}: exit ${code}: ${String(Buffer.concat(err))}`)),
    );
  });
}

const namespaces = (prefix: string) => Array.from({ length: NAMESPACES }, (_, i) => `${prefix}-${i}`);
async function createNamespaces(names: readonly string[]) {
  for (const name of names) await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

/** (a) kubectl apply --server-side of RELEASES × OBJECTS ConfigMaps: KUBECTL_PARALLEL files, one kubectl each. */
async function floor() {
  const cpu0 = await apiserverCpu();
  const f = await kubectlFloor({
    admin,
    kubeconfigPath: cp.kubeconfigPath,
    workDir: work,
    releases: RELEASES,
    objects: OBJECTS,
    namespaces: NAMESPACES,
    prefix: 'floor',
    parallel: KUBECTL_PARALLEL,
  });
  return { ...f, apiserverCpuSeconds: +((await apiserverCpu()) - cpu0).toFixed(2) };
}

/** --git: one repository with a path of ConfigMaps per Release, served over smart HTTP. */
async function gitSource() {
  const repo = await makeRepo('bench');
  const files: Record<string, string> = {};
  for (let r = 0; r < RELEASES; r++) files[`r${r}/configmaps.yaml`] = configMapManifests(r, OBJECTS);
  await repo.commit(files);
  const server = await serveGitHttp(repo.srv);
  return {
    url: `${server.base}/${repo.name}.git`,
    server,
    stop: async () => {
      await server.close();
      await repo.cleanup();
    },
  };
}
const gitServer = GIT ? await gitSource() : undefined;

try {
  const floorFigures = await floor();
  console.error(`floor: ${floorFigures.seconds} s for ${RELEASES * OBJECTS} objects`);
  await installCrds(cp.kubeConfig);
  await createNamespaces([LEASE_NS, ...namespaces('convoy')]);
  await installDefaultRules(admin);
  const manager = await startControllerManager({
    kubeconfigPath: cp.kubeconfigPath,
    identity: 'bench-floor',
    leaseNamespace: LEASE_NS,
    leaseDuration: '15s',
    gitCacheDir: join(work, 'git-cache'),
    tenancy: { mode: 'cluster' },
    env: childEnv,
    ...childArgs,
  });
  children.push(manager);
  const observer = await startObserver({
    env: childEnv,
    ...childArgs,
    kubeconfigPath: cp.kubeconfigPath,
    leaseNamespace: LEASE_NS,
    leaseDuration: '15s',
    wakeups: wakeupsTo(manager),
  });
  children.push(observer);

  // The bench's view of the Releases: one watch, not a LIST every poll.
  const ready = new Map<string, number>();
  const healthy = new Map<string, number>();
  const succeeded = new Map<string, number>();
  const lastHealthy = new Map<string, number>();
  type R = KubeObject & Release;
  const releases = new Informer<R>(new Transport(cp.kubeConfig), {
    path: `/apis/${API_VERSION}/${PLURAL_RELEASES}`,
  });
  const condTrue = (r: R, type: string, reason?: string) =>
    r.status?.conditions?.some(
      (c) => c.type === type && c.status === 'True' && (reason === undefined || c.reason === reason),
    ) === true;
  const see = (r: R) => {
    const k = `${r.metadata.namespace}/${r.metadata.name}`;
    const t = performance.now();
    if (!ready.has(k) && condTrue(r, 'Ready')) ready.set(k, t);
    if (!healthy.has(k) && condTrue(r, 'Healthy', 'Healthy') && r.status?.lastAttempted !== undefined)
      healthy.set(k, t);
    if (!succeeded.has(k) && r.status?.rollout?.state === 'Succeeded') succeeded.set(k, t);
    const attempted = r.status?.lastAttempted?.renderRef;
    if (!lastHealthy.has(k) && attempted !== undefined && r.status?.lastHealthy?.renderRef === attempted)
      lastHealthy.set(k, t);
  };
  releases.addHandlers({ add: see, update: (_o, n) => see(n) });
  informers.push(releases as unknown as Informer<KubeObject>);
  releases.start();
  await releases.waitForSync();

  const snap = async () => ({
    manager: await sample(manager),
    observer: await sample(observer),
    apiserver: await apiserverRequests(),
    apiserverCpu: await apiserverCpu(),
    controlPlaneCpu: await controlPlaneCpu(),
  });
  const before = await snap();
  const t0 = performance.now();
  const profiled =
    APISERVER_PROFILE === undefined
      ? undefined
      : profileApiserver(APISERVER_PROFILE).catch((err: unknown) =>
          console.error(`profile: ${errorMessage(err)}`),
        );
  let nextRelease = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let r = nextRelease++; r < RELEASES; r = nextRelease++) {
        const ns = `convoy-${r % NAMESPACES}`;
        await admin.create<Release>({
          apiVersion: API_VERSION,
          kind: 'Release',
          metadata: { name: `r${r}`, namespace: ns },
          spec: {
            source:
              gitServer === undefined
                ? { inline: { manifests: configMapManifests(r, OBJECTS) } }
                : { git: { url: gitServer.url, ref: { branch: 'main' }, path: `r${r}` } },
            ...(gitServer === undefined ? {} : { syncPolicy: { interval: '10m' } }),
            render: { targetNamespace: ns },
            healthAssessment: DEFAULT_HEALTH,
          },
        } as Release);
      }
    }),
  );
  for (let lastLog = 0; ready.size < RELEASES || healthy.size < RELEASES; await sleep(250)) {
    const now = performance.now();
    if (now - t0 > TIMEOUT_MS) throw new Error(`${ready.size} Ready, ${healthy.size} Healthy of ${RELEASES}`);
    if (now - lastLog > 15_000) {
      lastLog = now;
      console.error(`${secs(now - t0)} s: ${ready.size} Ready, ${healthy.size} Healthy of ${RELEASES}`);
    }
  }
  const tAll = Math.max(...ready.values(), ...healthy.values()) - t0;
  for (const t = performance.now(); lastHealthy.size < RELEASES; await sleep(250)) {
    if (performance.now() - t > 10 * 60_000)
      throw new Error(`${lastHealthy.size} of ${RELEASES} lastHealthy`);
  }
  const healthyLags = [...lastHealthy].map(([k, t]) => t - (healthy.get(k) ?? t));
  const tLastHealthy = Math.max(...lastHealthy.values()) - t0;
  // The stragglers: the Releases that came last, with when each was Ready and Healthy (the tail of the burst).
  const last = [...healthy.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3);
  for (const [k, t] of last)
    console.error(`last Healthy: ${k} at ${secs(t - t0)} s (Ready at ${secs((ready.get(k) ?? t0) - t0)} s)`);
  // The burst is over once both work queues are empty (timed rechecks may still be pending).
  while (parseMetrics(await manager.metrics()).depth + parseMetrics(await observer.metrics()).depth > 0)
    await sleep(500);
  const burst = await snap();
  if (profiled !== undefined) await profiled;
  if (HEAP_SNAPSHOTS !== undefined) {
    for (const c of [manager, observer]) c.proc.kill('SIGUSR2');
    console.error(`heap snapshots asked for in ${HEAP_SNAPSHOTS}`);
  }
  console.error(`all Ready and Healthy after ${secs(tAll)} s; steady window of ${STEADY_SECONDS} s`);
  await sleep(STEADY_SECONDS * 1000);
  const steady = await snap();

  const perProcess = (a: Sample, b: Sample, c: Sample) => ({
    cpuSecondsBurst: +(b.cpuSeconds - a.cpuSeconds).toFixed(2),
    peakRssMiB: c.hwmMiB,
    requestsBurst:
      Object.values(b.requests).reduce((s, v) => s + v, 0) -
      Object.values(a.requests).reduce((s, v) => s + v, 0),
    requestsBurstByResource: Object.fromEntries(
      Object.entries(b.requests)
        .map(([k, v]) => [k, v - (a.requests[k] ?? 0)] as const)
        .filter(([, d]) => d > 0)
        .sort((p, q) => q[1] - p[1]),
    ),
    reconcilesBurst: reconcileFigures(a, b),
    steady: rates(b, c),
  });
  const convoyRequests = delta(before.apiserver, burst.apiserver);
  // Every process's CPU seconds over the burst against what the machine's cores could give in that time.
  const burstSeconds = (burst.manager.at - before.manager.at) / 1000;
  const cpuByProcess: Record<string, number> = {
    'convoy-controller-manager': burst.manager.cpuSeconds - before.manager.cpuSeconds,
    'convoy-observer': burst.observer.cpuSeconds - before.observer.cpuSeconds,
  };
  for (const [k, v] of Object.entries(burst.controlPlaneCpu))
    cpuByProcess[k] = v - (before.controlPlaneCpu[k] ?? 0);
  const cpuTotal = Object.values(cpuByProcess).reduce((a, b) => a + b, 0);
  const steadyRequests = delta(burst.apiserver, steady.apiserver);
  const objects = RELEASES * OBJECTS;
  console.log(
    JSON.stringify(
      {
        releases: RELEASES,
        objectsPerRelease: OBJECTS,
        namespaces: NAMESPACES,
        floor: { ...floorFigures, requestsPerObject: +(floorFigures.requests.total / objects).toFixed(2) },
        source: gitServer === undefined ? 'inline' : 'git over smart HTTP, one repository',
        convoy: {
          secondsToAllReadyAndHealthy: secs(tAll),
          secondsToAllLastHealthy: secs(tLastHealthy),
          healthyToLastHealthySeconds: {
            p50: secs(pct(healthyLags, 0.5)),
            p95: secs(pct(healthyLags, 0.95)),
            max: secs(Math.max(...healthyLags)),
          },
          gitServerRequests: gitServer?.server.requests,
          ratioToFloor: +(secs(tAll) / floorFigures.seconds).toFixed(2),
          apiserverCpuSeconds: +(burst.apiserverCpu - before.apiserverCpu).toFixed(2),
          cpuSecondsByProcess: Object.fromEntries(
            Object.entries(cpuByProcess)
              .filter(([, v]) => v > 0)
              .sort((a, b) => b[1] - a[1])
              .map(([k, v]) => [k, +v.toFixed(2)]),
          ),
          coresBusy: `${cpuTotal.toFixed(1)} CPU-s in ${burstSeconds.toFixed(1)} s: ${(cpuTotal / burstSeconds).toFixed(2)} of ${availableParallelism()} cores`,
          requests: convoyRequests,
          requestsPerObject: +(convoyRequests.total / objects).toFixed(2),
          manager: perProcess(before.manager, burst.manager, steady.manager),
          observer: perProcess(before.observer, burst.observer, steady.observer),
        },
        steady: {
          seconds: STEADY_SECONDS,
          apiserverRequestsPerMinute: +((steadyRequests.total * 60) / STEADY_SECONDS).toFixed(1),
          apiserverByVerbAndResource: steadyRequests.byVerbAndResource,
          apiserverCpuPercent: +(((steady.apiserverCpu - burst.apiserverCpu) * 100) / STEADY_SECONDS).toFixed(
            1,
          ),
        },
      },
      null,
      2,
    ),
  );
  // (c) last pod Ready → Succeeded: one Deployment per Release, its pod Ready after a delay.
  const podReady = new Map<string, number>();
  const pods = new Informer<KubeObject>(new Transport(cp.kubeConfig), {
    path: '/api/v1/namespaces/convoy-0/pods',
  });
  pods.addHandlers({
    update: (_o, p) => {
      const rel = (p.metadata?.labels as Record<string, string> | undefined)?.app;
      const st = (p as { status?: { conditions?: { type: string; status: string }[] } }).status;
      if (rel && !podReady.has(rel) && st?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
        podReady.set(rel, performance.now());
    },
  });
  informers.push(pods);
  pods.start();
  await pods.waitForSync();
  const deployment = (name: string) =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: ${name}}}\n  template:\n    metadata:\n      labels: {app: ${name}, ${TEST_LABEL_DELAY}: "true"}\n      annotations: {${TEST_ANNOTATION_READY_DELAY}: 3s}\n    spec:\n      containers: [{name: main, image: registry.invalid/noop:1}]\n`;
  const lags: number[] = [];
  for (let i = 0; i < PODS; i++) {
    const name = `pod-${i}`;
    await admin.create<Release>({
      apiVersion: API_VERSION,
      kind: 'Release',
      metadata: { name, namespace: 'convoy-0' },
      spec: {
        source: { inline: { manifests: deployment(name) } },
        render: { targetNamespace: 'convoy-0' },
        healthAssessment: DEFAULT_HEALTH,
        // status.rollout (and its Succeeded) exists only with a failurePolicy.
        failurePolicy: { deadline: '5m' },
      },
    } as Release);
    const k = `convoy-0/${name}`;
    for (const t = performance.now(); !succeeded.has(k) || !podReady.has(name); await sleep(100)) {
      if (performance.now() - t > 120_000) throw new Error(`${name}: no Succeeded rollout after 120 s`);
    }
    lags.push((succeeded.get(k) as number) - (podReady.get(name) as number));
  }

  console.log(
    JSON.stringify({ lastPodReadyToSucceededSeconds: { median: secs(median(lags)), all: lags.map(secs) } }),
  );
} catch (err) {
  console.error(errorMessage(err));
  process.exitCode = 1;
} finally {
  if (LOGS !== undefined)
    for (const [name, c] of [
      ['manager', children[0]],
      ['observer', children[1]],
    ] as const)
      if (c !== undefined) await writeFile(join(LOGS, `${name}.log`), c.log());
  for (const i of informers) await i.stop();
  for (const c of children.reverse())
    await c.stop().catch((err: unknown) => console.error(`stopping: ${errorMessage(err)}`));
  await cp.stop();
  await gitServer?.stop();
  await rm(work, { recursive: true, force: true });
}
