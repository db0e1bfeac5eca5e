// npm run bench:replay — the least convoy's requests can take at N Releases: no convoy process runs;
// this script sends, Release by Release, exactly the requests both processes send to roll out a new
// Release of 10 ConfigMaps (bench/release-requests.ts, in their order), with the watches both keep open
// (Releases and ReleaseInventories each, the observer's ConfigMaps by the Release label) and the bench's
// own watch of the Releases, as bench:scale has them. No reconcile, render, cache or health rule runs:
// what the time to all Ready and Healthy comes to is the API server's, etcd's and the watches' cost of
// the requests themselves, against the kubectl floor of the same objects in the same run
// (docs/development.md#the-scale-curve). A ratio at or above a target here bounds every implementation
// that sends those requests. Env: CONVOY_BENCH_RELEASES (1000), CONVOY_BENCH_OBJECTS (10),
// CONVOY_BENCH_NAMESPACES (20), CONVOY_BENCH_REPLAY_WORKERS (16 Releases at once),
// CONVOY_BENCH_REPLAY_WATCHES=0 (without the two processes' watches: what they cost, by difference).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_VERSION, LABEL_RELEASE, PLURAL_RELEASES } from '../src/api/constants.ts';
import { KubeClient } from '../src/kube/client.ts';
import type { KubeObject } from '../src/runtime/index.ts';
import { Informer } from '../src/runtime/informer.ts';
import { Transport } from '../src/runtime/transport.ts';
import { startControlPlane } from '../src/testenv/index.ts';
import { installCrds } from '../test/support/crds.ts';
import { apiserverRequests, floorOnItsOwnPlane, requestDelta } from './kubectl-floor.ts';
import { controlPlaneCpu, cpDelta, scriptCpu, total } from './procs.ts';
import { BURST_SHAPE, benchRelease, ReleaseWatch, secs } from './release-burst.ts';
import { type BenchTarget, releaseRequests } from './release-requests.ts';

const RELEASES = Number(process.env.CONVOY_BENCH_RELEASES ?? 1000);
const { objects: OBJECTS, namespaces: NAMESPACES } = BURST_SHAPE;
const WORKERS = Number(process.env.CONVOY_BENCH_REPLAY_WORKERS ?? 16);
const WATCHES = process.env.CONVOY_BENCH_REPLAY_WATCHES !== '0';
const CREATE_PARALLEL = 16;
const TIMEOUT_MS = 30 * 60_000;

/** The watches of one convoy process: each its own connections, as a process has. */
function watches(
  kubeConfig: ConstructorParameters<typeof Transport>[0],
  paths: readonly [string, string?][],
) {
  const transport = new Transport(kubeConfig);
  return paths.map(
    ([path, labelSelector]) =>
      new Informer<KubeObject>(transport, {
        path,
        ...(labelSelector === undefined ? {} : { labelSelector }),
      }),
  );
}

/** Runs `f(i)` for i in [0, n), `parallel` at once. */
async function pool(n: number, parallel: number, f: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let i = next++; i < n; i = next++) await f(i);
    }),
  );
}

const work = await mkdtemp(join(tmpdir(), 'convoy-bench-replay-'));
const floor = await floorOnItsOwnPlane({ ...BURST_SHAPE, releases: RELEASES, workDir: work });
console.error(`the kubectl floor of ${RELEASES} × ${OBJECTS} ConfigMaps: ${floor.seconds} s`);

const cp = await startControlPlane({});
const informers: Informer<KubeObject>[] = [];
let releases: ReleaseWatch | undefined;
try {
  const admin = new KubeClient(cp.kubeConfig);
  await installCrds(cp.kubeConfig);
  for (let i = 0; i < NAMESPACES; i++)
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `scale-${i}` } });
  const base = `/apis/${API_VERSION}`;
  if (WATCHES)
    informers.push(
      // the controller-manager's
      ...watches(cp.kubeConfig, [[`${base}/${PLURAL_RELEASES}`], [`${base}/releaseinventories`]]),
      // the observer's
      ...watches(cp.kubeConfig, [
        [`${base}/${PLURAL_RELEASES}`],
        [`${base}/releaseinventories`],
        ['/api/v1/configmaps', LABEL_RELEASE],
      ]),
    );
  for (const inf of informers) inf.start();
  for (const inf of informers) await inf.waitForSync();
  releases = new ReleaseWatch(cp.kubeConfig);
  await releases.start();

  const target = (i: number): BenchTarget => ({
    namespace: `scale-${i % NAMESPACES}`,
    name: `r${i}`,
    index: i,
    objects: OBJECTS,
  });
  // Each Release is worked once the user's create of it answered, as a watch event would start it.
  const created = Array.from({ length: RELEASES }, () => Promise.withResolvers<void>());
  const objects = Array.from({ length: OBJECTS }, (_, j) => j);
  const client = new KubeClient(cp.kubeConfig);
  const req0 = await apiserverRequests(admin);
  const cpu0 = { ...(await controlPlaneCpu(cp)), 'bench (this script)': scriptCpu() };
  const t0 = performance.now();
  await Promise.all([
    pool(RELEASES, CREATE_PARALLEL, async (i) => {
      const t = target(i);
      await admin.create(benchRelease(i, t.name, t.namespace, OBJECTS, undefined));
      created[i]?.resolve();
    }),
    pool(RELEASES, WORKERS, async (i) => {
      await created[i]?.promise;
      const r = releaseRequests(client, target(i));
      await r.finalizer();
      await r.renderSecret();
      await r.notePending();
      await Promise.all(objects.map((j) => r.dryRun(j)));
      await Promise.all(objects.map((j) => r.applyObject(j)));
      await r.record();
      await r.statusApplied();
      await r.event();
      await r.health();
      await r.statusHealthy();
      await r.statusSucceeded();
    }),
  ]);
  if (!(await releases.waitAll(RELEASES, t0, TIMEOUT_MS)))
    throw new Error(`after ${secs(performance.now() - t0)} s: ${releases.progress(RELEASES)}`);
  const seconds = secs(Math.max(...releases.ready.values(), ...releases.healthy.values()) - t0);
  const cpu = cpDelta(cpu0, { ...(await controlPlaneCpu(cp)), 'bench (this script)': scriptCpu() });
  const requests = requestDelta(req0, await apiserverRequests(admin));
  console.log(
    JSON.stringify(
      {
        releases: RELEASES,
        objects: OBJECTS,
        workers: WORKERS,
        processWatches: WATCHES,
        floor: { seconds: floor.seconds, cpuSeconds: floor.cpuSeconds },
        replay: {
          allReadyAndHealthySeconds: seconds,
          ratio: +(seconds / floor.seconds).toFixed(2),
          cpuSeconds: cpu,
          cpuSecondsInAll: +total(cpu).toFixed(1),
          coresBusy: +(total(cpu) / seconds).toFixed(2),
          requestsPerObject: +(requests.total / (RELEASES * OBJECTS)).toFixed(2),
          requests: requests.byVerbAndResource,
        },
      },
      null,
      2,
    ),
  );
} finally {
  await releases?.stop();
  await Promise.all(informers.map((inf) => inf.stop()));
  await cp.stop();
  await rm(work, { recursive: true, force: true });
}
process.exit(0);
