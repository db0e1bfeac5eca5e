// One chaos run: a local control plane with kwok, convoy's two processes as children (crew.ts), N
// Releases driven through healthy → healthy → unhealthy renders (drive.ts, scenario.ts) while the seeded
// fault schedule (schedule.ts) kills -9 the controller-manager and the observer and restarts
// kube-apiserver, and — with a Prometheus that every render is verified against — kills -9 Prometheus
// during the soaks; then every Release is awaited until it has converged, and the invariants
// (invariants.ts) are checked over what the watches recorded (watch.ts) and what is live. The result
// carries the figures `npm run chaos` prints and every violation found.
import { cp as copy, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReleaseInventory } from '../../src/api/types.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { errorMessage } from '../../src/lib/errors.ts';
import { installDefaultRules } from '../../src/observer/health/loop/index.ts';
import { type ControlPlane, startControlPlane } from '../../src/testenv/index.ts';
import { startPrometheus, type TestPrometheus } from '../../src/testenv/prometheus.ts';
import { startTrafficSim, type TrafficSim } from '../../src/testenv/traffic-sim.ts';
import { installCrds } from '../support/crds.ts';
import { getInventory, getRelease } from '../support/release.ts';
import { LEASE_NS } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';
import { Crew } from './crew.ts';
import { type DriveResult, driveRelease } from './drive.ts';
import {
  checkExits,
  checkLive,
  checkRelease,
  checkTerminal,
  INVARIANTS,
  type Invariant,
  type ReleaseRecord,
  type Violation,
} from './invariants.ts';
import { HOOK, type LiveObject, RELEASE_NAME, type ScenarioOptions, type Step } from './scenario.ts';
import {
  describeSchedule,
  type Fault,
  faultSchedule,
  type PrometheusFault,
  prometheusSchedule,
} from './schedule.ts';
import { ChaosWatch } from './watch.ts';

export interface ChaosOptions {
  readonly seed: number;
  readonly releases: number;
  /** kill -9 of the controller-manager or the observer. */
  readonly kills: number;
  readonly apiServerRestarts: number;
  /** kill -9 of Prometheus during the soaks; 0: no Prometheus and no verification. */
  readonly prometheusKills: number;
  /** Range of how long a killed Prometheus stays down. */
  readonly prometheusDownMs: readonly [number, number];
  /** Range of the wait before each fault. */
  readonly gapMs: readonly [number, number];
  /** Range of how long a killed process stays down. */
  readonly downMs: readonly [number, number];
  /** Release i starts i × this after the first, so the kills find them at different steps. */
  readonly staggerMs: number;
  readonly scenario: ScenarioOptions;
  /** --lease-duration of both convoy processes. */
  readonly leaseDuration: string;
  readonly stepTimeoutMs: number;
  /** How long the Releases may take to converge once the drive is over. */
  readonly convergeTimeoutMs: number;
  readonly log: (line: string) => void;
}

export interface ChaosReport {
  readonly seed: number;
  readonly releases: number;
  readonly schedule: readonly Fault[];
  readonly kills: number;
  readonly apiServerRestarts: number;
  readonly prometheusKills: number;
  /** Releases' Passed Events: verifications that passed their soak (2 per Release with a Prometheus). */
  readonly verificationsPassed: number;
  /** Invariants without a violation, of INVARIANTS.length. */
  readonly invariantsHeld: number;
  readonly violations: readonly Violation[];
  /** From the last fault to every Release in its terminal state with render 2's objects live. */
  readonly convergenceSeconds: number | undefined;
  readonly durationSeconds: number;
  /** Watch relists after a 410: transitions in between may have gone unseen. */
  readonly relists: number;
  readonly transitionsSeen: number;
  readonly hookJobsSeen: number;
  /** Per step: median and max seconds from its spec write to its rollout's end, over the Releases. */
  readonly stepSeconds: Readonly<Record<Step, { readonly median: number; readonly max: number }>>;
}

/** The control plane processes that must all still run at the end. */
const CONTROL_PLANE = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok'];

export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const t0 = Date.now();
  const schedule = faultSchedule({
    seed: o.seed,
    kills: o.kills,
    apiServerRestarts: o.apiServerRestarts,
    gapMs: o.gapMs,
    downMs: o.downMs,
  });
  const promSchedule = prometheusSchedule({
    seed: o.seed,
    kills: o.prometheusKills,
    gapMs: o.gapMs,
    downMs: o.prometheusDownMs,
  });
  o.log(
    `chaos: seed ${o.seed} (CHAOS_SEED=${o.seed} replays it), ${o.releases} Releases, schedule:\n${describeSchedule(schedule)}` +
      (promSchedule.length === 0
        ? ''
        : `\nPrometheus: ${promSchedule.map((f) => `+${f.gapMs} ms kill -9, down ${f.downMs} ms`).join('; ')}`),
  );
  const cp = await startControlPlane({ workloads: true, nodes: 2 });
  const work = await mkdtemp(join(tmpdir(), 'convoy-chaos-'));
  let crew: Crew | undefined;
  let watch: ChaosWatch | undefined;
  let sim: TrafficSim | undefined;
  let prom: TestPrometheus | undefined;
  try {
    let scenario = o.scenario;
    if (o.prometheusKills > 0) {
      sim = await startTrafficSim();
      prom = await startPrometheus({ targets: [sim.target] });
      scenario = { ...scenario, prometheus: prom.url };
    }
    const client = new KubeClient(cp.kubeConfig);
    await installCrds(cp.kubeConfig);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: LEASE_NS } });
    await installDefaultRules(client);
    crew = await Crew.start({
      kubeconfigPath: cp.kubeconfigPath,
      leaseNamespace: LEASE_NS,
      gitCacheDir: join(work, 'git-cache'),
      leaseDuration: o.leaseDuration,
    });
    watch = new ChaosWatch(cp.kubeConfig);
    await watch.start();
    o.log(`chaos: system up in ${secs(Date.now() - t0)} s`);

    const namespaces = Array.from({ length: o.releases }, (_, i) => `chaos-${i}`);
    const ctx = { client, watch, scenario, stepTimeoutMs: o.stepTimeoutMs };
    const drives = Promise.all(
      namespaces.map(async (ns, i) => {
        await sleep(i * o.staggerMs);
        return driveRelease(ctx, ns);
      }),
    );
    const faults = new AbortController();
    const executed = runFaults(schedule, crew, cp, faults.signal, o.log);
    const promKilled =
      prom === undefined ? Promise.resolve(0) : killPrometheus(promSchedule, prom, faults.signal, o.log);
    const results = await drives;
    faults.abort();
    const done = await executed;
    const prometheusKills = await promKilled;
    o.log(
      `chaos: drive over after ${secs(Date.now() - t0)} s; ${done.kills} kills, ${done.restarts} apiserver restarts, ${prometheusKills} Prometheus kills`,
    );

    const w = watch;
    const convergedAt = await converge(client, results, o.convergeTimeoutMs);
    const lastDrive = Math.max(...results.map((r) => r.doneAt ?? Number.NaN));
    const records = await Promise.all(results.map((r) => recordOf(client, w, r)));
    const violations = [
      ...records.flatMap(checkRelease),
      ...checkExits(crew.unexpectedExits),
      ...controlPlaneExits(cp),
    ];
    if (violations.length > 0) {
      for (const r of records) if (violations.some((x) => x.subject === r.subject)) o.log(finalState(r));
      await keepLogs(crew, cp, o);
    }
    const broken = new Set<Invariant>(violations.map((x) => x.invariant));
    const end =
      convergedAt === undefined || Number.isNaN(lastDrive) ? undefined : Math.max(convergedAt, lastDrive);
    return {
      seed: o.seed,
      releases: o.releases,
      schedule,
      kills: done.kills,
      apiServerRestarts: done.restarts,
      prometheusKills,
      verificationsPassed: records.reduce(
        (n, r) => n + r.events.filter((e) => e.reason === 'Passed').length,
        0,
      ),
      invariantsHeld: INVARIANTS.filter((i) => !broken.has(i)).length,
      violations,
      convergenceSeconds: end === undefined ? undefined : secs(Math.max(0, end - (done.lastFaultAt ?? t0))),
      durationSeconds: secs(Date.now() - t0),
      relists: watch.relists,
      transitionsSeen: records.reduce(
        (n, r) => n + r.snapshots.filter((s) => s.rollout !== undefined).length,
        0,
      ),
      stepSeconds: stepFigures(results),
      hookJobsSeen: watch.hookRuns().reduce((n, h) => n + h.jobUids.size, 0),
    };
  } catch (err) {
    throw new Error(`${errorMessage(err)}\n${crew?.logs() ?? ''}`, { cause: err });
  } finally {
    await watch?.stop();
    await crew?.stop();
    await prom?.stop();
    await sim?.stop();
    await cp.stop();
    await rm(work, { recursive: true, force: true });
  }
}

/** A failed run's process logs, kept where the run says (convoy's and the control plane's). */
async function keepLogs(crew: Crew, cp: ControlPlane, o: ChaosOptions): Promise<void> {
  const dir = join(tmpdir(), `convoy-chaos-${o.seed}-${Date.now()}`);
  await mkdir(dir, { recursive: true });
  for (const p of crew.outputs) await writeFile(join(dir, `${p.name}.log`), p.log());
  await copy(join(cp.dir, 'logs'), join(dir, 'control-plane'), { recursive: true });
  o.log(`chaos: logs of the run kept in ${dir}`);
}

/**
 * A Release's state as read at the end, for a run that broke an invariant: what its last reconcile
 * wrote (rollout, attempt, conditions' reasons and messages) and what the inventory records, so a
 * Release that says RolledBack with the bad render still live shows why.
 */
function finalState(r: ReleaseRecord): string {
  const st = r.final?.status;
  const conditions = (st?.conditions ?? []).map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`);
  return `final ${r.subject} (resourceVersion ${r.final?.metadata.resourceVersion}): ${JSON.stringify({
    rollout: st?.rollout,
    lastAttempted: st?.lastAttempted,
    lastSuccessful: st?.lastSuccessful?.renderRef,
    lastHealthy: st?.lastHealthy?.renderRef,
    message: st?.message,
    conditions,
    entries: r.entries,
    live: r.live,
  })}`;
}

function stepFigures(results: readonly DriveResult[]): ChaosReport['stepSeconds'] {
  const of = (step: Step) => {
    const xs = results.flatMap((r) => r.stepSeconds[step] ?? []).sort((a, b) => a - b);
    return { median: +(xs[Math.floor(xs.length / 2)] ?? 0).toFixed(1), max: +(xs.at(-1) ?? 0).toFixed(1) };
  };
  return { 1: of(1), 2: of(2), 3: of(3) };
}

const secs = (ms: number) => +(ms / 1000).toFixed(1);

/**
 * Runs the schedule until it is over or `stop` fires (the drive ended). A process killed is always
 * started again, even when `stop` fires while it is down.
 */
async function runFaults(
  schedule: readonly Fault[],
  crew: Crew,
  cp: ControlPlane,
  stop: AbortSignal,
  say: (line: string) => void,
): Promise<{ kills: number; restarts: number; lastFaultAt: number | undefined }> {
  const log = (line: string) => say(`${new Date().toISOString()} ${line}`);
  let kills = 0;
  let restarts = 0;
  let lastFaultAt: number | undefined;
  for (const f of schedule) {
    try {
      await sleep(f.gapMs, undefined, { signal: stop });
    } catch {
      break;
    }
    lastFaultAt = Date.now();
    if (f.kind === 'restart-apiserver') {
      log('chaos: restarting kube-apiserver');
      await cp.restartApiServer();
      restarts++;
      continue;
    }
    log(`chaos: kill -9 ${f.target}`);
    await crew.kill(f.target);
    kills++;
    await sleep(f.downMs);
    try {
      await crew.restart(f.target, f.newIdentity);
    } catch (err) {
      // Recorded by the crew as unexpected exits (a "process exits" violation); the run goes on.
      log(`chaos: ${f.target} did not start again: ${errorMessage(err)}`);
      continue;
    }
    log(`chaos: ${f.target} started again (${f.newIdentity ? 'new' : 'same'} identity)`);
  }
  return { kills, restarts, lastFaultAt };
}

/**
 * Kills Prometheus -9 on its own schedule until it is over or `stop` fires; a killed Prometheus is
 * always started again (same port and data), even when `stop` fires while it is down. Returns the kills.
 */
async function killPrometheus(
  schedule: readonly PrometheusFault[],
  prom: TestPrometheus,
  stop: AbortSignal,
  say: (line: string) => void,
): Promise<number> {
  const log = (line: string) => say(`${new Date().toISOString()} ${line}`);
  let kills = 0;
  for (const f of schedule) {
    try {
      await sleep(f.gapMs, undefined, { signal: stop });
    } catch {
      break;
    }
    log('chaos: kill -9 prometheus');
    await prom.kill();
    kills++;
    await sleep(f.downMs);
    try {
      await prom.restart();
    } catch (err) {
      // The soaks then hold (inconclusive) until their steps time out: drive failures name them.
      log(`chaos: prometheus did not start again: ${errorMessage(err)}`);
      break;
    }
    log('chaos: prometheus started again');
  }
  return kills;
}

/** Waits until every driven Release is in its terminal state with render 2 live; the time it was, or undefined. */
async function converge(client: KubeClient, results: readonly DriveResult[], timeoutMs: number) {
  const pending = new Set(results.filter((r) => r.failure === undefined));
  try {
    await waitFor(
      `${pending.size} Releases converged`,
      async () => {
        for (const r of [...pending]) {
          const rec = {
            ...(await readLive(client, r.ns)),
            subject: r.ns,
            refs: r.refs,
            driveFailure: undefined,
          };
          if (checkTerminal(rec).length === 0 && checkLive(rec).length === 0) pending.delete(r);
        }
        return pending.size === 0;
      },
      { timeoutMs, intervalMs: 1000 },
    );
    return Date.now();
  } catch {
    return undefined;
  }
}

async function readLive(client: KubeClient, ns: string) {
  const [final, inv, cms, deploys, jobs] = await Promise.all([
    getRelease(client, ns, RELEASE_NAME),
    getInventory(client, ns, RELEASE_NAME),
    client.list<{ metadata: { name: string }; data?: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
    }),
    client.list<{
      metadata: { name: string };
      spec?: { template?: { metadata?: { labels?: Record<string, string> } } };
    }>({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns }),
    client.list<{ metadata: { name: string } }>({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns }),
  ]);
  const live: LiveObject[] = [
    // kube-root-ca.crt is the cluster's, in every namespace.
    ...cms
      .filter((c) => c.metadata.name !== 'kube-root-ca.crt')
      .map((c) => ({ kind: 'ConfigMap', name: c.metadata.name, data: c.data ?? {} })),
    ...deploys.map((d) => ({
      kind: 'Deployment',
      name: d.metadata.name,
      version: d.spec?.template?.metadata?.labels?.version ?? '',
    })),
    ...jobs.map((j) => ({ kind: 'Job', name: j.metadata.name })),
  ];
  return { final, entries: entriesOf(inv), live };
}

function entriesOf(inv: ReleaseInventory | undefined) {
  return (inv?.entries ?? []).map((e) => ({ key: `${e.kind}/${e.name}`, renderRef: e.renderRef }));
}

async function recordOf(client: KubeClient, watch: ChaosWatch, r: DriveResult): Promise<ReleaseRecord> {
  const live = await waitFor(`${r.ns}: final reads`, () => readLive(client, r.ns), { timeoutMs: 60_000 });
  const events = await waitFor(`${r.ns}: Events`, () =>
    client.list<{ reason?: string; message?: string; involvedObject?: { kind?: string; name?: string } }>({
      apiVersion: 'v1',
      kind: 'Event',
      namespace: r.ns,
    }),
  );
  return {
    subject: `${r.ns}/${RELEASE_NAME}`,
    refs: r.refs,
    driveFailure: r.failure,
    snapshots: watch.snapshots(r.ns, RELEASE_NAME),
    ...live,
    events: events.filter(
      (e) => e.involvedObject?.kind === 'Release' && e.involvedObject.name === RELEASE_NAME,
    ),
    hookRuns: watch
      .hookRuns()
      .filter((h) => h.namespace === r.ns && h.hook === HOOK)
      .map((h) => ({
        renderRef: h.renderRef,
        jobs: [...h.jobUids].map((uid) => ({ uid, pods: watch.podsOf(uid).size })),
      })),
  };
}

function controlPlaneExits(cp: ControlPlane): Violation[] {
  const running = new Set(cp.processes().map((p) => p.name));
  return CONTROL_PLANE.filter((n) => !running.has(n)).map((n) => ({
    invariant: 'process exits' as const,
    subject: n,
    detail: 'is no longer running',
  }));
}
