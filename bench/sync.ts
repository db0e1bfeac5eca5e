// npm run bench:sync — 200 Releases of 10 objects each on one local control plane, reconciled by the
// release controller running in a child process (this file again, in its controller role), so the
// memory figure is the controller's own and not the bench's. Prints: time from creating them to all
// Ready, API requests per reconcile in steady state (through the controller's KubeClient: reads and
// writes separately; the informers' watches are not requests per reconcile), the controller's RSS
// (VmRSS after the steady pass, VmHWM = its peak) from /proc/<pid>/status, and how many connections
// the controller opened for how many requests.
import { fork } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { API_VERSION } from '../src/api/constants.ts';
import type { Release } from '../src/api/types.ts';
import { registerReleaseController } from '../src/controller/release/controller.ts';
import { KubeClient, type RawRequest } from '../src/kube/client.ts';
import { Harness, newLogger } from '../src/runtime/index.ts';
import { configMapManifests } from './fixtures.ts';

const RELEASES = Number(process.env.BENCH_RELEASES ?? 200);
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10);
const NAMESPACES = 20;
const LEASE_NS = 'convoy-system';

type Steady = {
  readonly reconciles: number;
  readonly reads: number;
  readonly writes: number;
  readonly transport: unknown;
};
type ToParent = { readonly type: 'ready' } | ({ readonly type: 'steady' } & Steady);
type ToChild = { readonly type: 'steady' } | { readonly type: 'stop' };

if (process.env.BENCH_SYNC_ROLE === 'controller') await controller();
else await bench();

/** The controller process: harness + release controller, counting its KubeClient's requests. */
async function controller(): Promise<void> {
  const send = (m: ToParent) => process.send?.(m);
  const kc = new KubeConfig();
  kc.loadFromFile(process.env.BENCH_KUBECONFIG ?? '');
  const counts = { reads: 0, writes: 0 };
  class CountingClient extends KubeClient {
    override async request<T = unknown>(req: RawRequest): Promise<T> {
      if (req.method === 'GET') counts.reads++;
      else counts.writes++;
      return super.request<T>(req);
    }
  }
  const harness = new Harness({
    name: 'bench',
    kubeConfig: kc,
    log: newLogger('bench', undefined, 'warn'),
    shards: { count: 1, namespace: LEASE_NS, role: 'controller', identity: 'bench' },
  });
  const { controller } = registerReleaseController(harness, {
    tenancy: { mode: 'cluster' },
    kubeConfig: kc,
    leaseNamespace: LEASE_NS,
    gitCacheDir: '/tmp/convoy-bench-git',
    workers: 8,
    makeClient: (k: KubeConfig) => new CountingClient(k),
  });
  const reconciles = async (): Promise<number> => {
    const m = await harness.metrics.registry.getSingleMetric('convoy_reconcile_duration_seconds')?.get();
    return (m?.values ?? [])
      .filter(
        (v) =>
          (v as { metricName?: string }).metricName === 'convoy_reconcile_duration_seconds_count' &&
          v.labels.controller === 'release',
      )
      .reduce((s, v) => s + v.value, 0);
  };
  // Absent before the transport was shared (the "before" figures are taken from that tree too).
  const stats = await import('../src/kube/transport.ts').then(
    (m: Record<string, unknown>) => m.transportStats as (() => unknown) | undefined,
    () => undefined,
  );
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  process.on('message', async (m: ToChild) => {
    switch (m.type) {
      case 'steady': {
        // steady state: every key once more, nothing changed; first let the wake-ups our own
        // writes caused drain
        while (controller.queue.len() > 0) await sleep(100);
        const before = await reconciles();
        const c0 = { ...counts };
        const list = await new KubeClient(kc).list<Release>({ apiVersion: API_VERSION, kind: 'Release' });
        for (const r of list) controller.queue.add(`${r.metadata.namespace}/${r.metadata.name}`);
        while ((await reconciles()) < before + list.length) await sleep(100);
        send({
          type: 'steady',
          reconciles: (await reconciles()) - before,
          reads: counts.reads - c0.reads,
          writes: counts.writes - c0.writes,
          transport: stats?.(),
        });
        break;
      }
      case 'stop':
        await harness.stop();
        process.exit(0);
    }
  });
  await harness.start();
  send({ type: 'ready' });
}

async function procStatus(pid: number): Promise<{ rssMiB: number; hwmMiB: number }> {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rssMiB: +(kib('VmRSS') / 1024).toFixed(1), hwmMiB: +(kib('VmHWM') / 1024).toFixed(1) };
}

async function bench(): Promise<void> {
  const { startControlPlane } = await import('../src/testenv/index.ts');
  const { installCrds } = await import('../test/support/crds.ts');
  const cp = await startControlPlane({});
  const child = fork(new URL(import.meta.url).pathname, [], {
    env: { ...process.env, BENCH_SYNC_ROLE: 'controller', BENCH_KUBECONFIG: cp.kubeconfigPath },
  });
  const next = <K extends ToParent['type']>(type: K) =>
    new Promise<Extract<ToParent, { type: K }>>((resolve, reject) => {
      const onMessage = (m: ToParent) => {
        if (m.type !== type) return;
        child.off('message', onMessage);
        resolve(m as Extract<ToParent, { type: K }>);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`controller exited (${code}) before '${type}'`)));
    });
  try {
    const admin = new KubeClient(cp.kubeConfig);
    await installCrds(cp.kubeConfig);
    for (const name of [LEASE_NS, ...Array.from({ length: NAMESPACES }, (_, i) => `bench-${i}`)]) {
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    await next('ready');
    const pid = child.pid ?? 0;
    const idle = await procStatus(pid);

    const manifests = (r: number) => configMapManifests(r, OBJECTS);
    const t0 = performance.now();
    for (let r = 0; r < RELEASES; r++) {
      const ns = `bench-${r % NAMESPACES}`;
      const rel: Release = {
        apiVersion: API_VERSION,
        kind: 'Release',
        metadata: { name: `r${r}`, namespace: ns },
        spec: { source: { inline: { manifests: manifests(r) } }, render: { targetNamespace: ns } },
      };
      await admin.create(rel);
    }
    const tCreated = performance.now();
    for (;;) {
      const list = await admin.list<Release>({ apiVersion: API_VERSION, kind: 'Release' });
      const ready = list.filter((r) =>
        r.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      ).length;
      if (ready === RELEASES) break;
      if (performance.now() - t0 > 600_000)
        throw new Error(`only ${ready}/${RELEASES} Ready after 10 minutes`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const tReady = performance.now();

    const steadyReply = next('steady');
    child.send({ type: 'steady' } satisfies ToChild);
    const steady = await steadyReply;
    const mem = await procStatus(pid);
    console.log(
      JSON.stringify(
        {
          releases: RELEASES,
          objectsPerRelease: OBJECTS,
          createSeconds: +((tCreated - t0) / 1000).toFixed(2),
          createToAllReadySeconds: +((tReady - t0) / 1000).toFixed(2),
          steadyReconciles: steady.reconciles,
          steadyReadsPerReconcile: +(steady.reads / steady.reconciles).toFixed(3),
          steadyWritesPerReconcile: +(steady.writes / steady.reconciles).toFixed(3),
          controllerRssIdleMiB: idle.rssMiB,
          controllerRssMiB: mem.rssMiB,
          controllerPeakRssMiB: mem.hwmMiB,
          controllerTransport: steady.transport,
        },
        null,
        2,
      ),
    );
    const exited = new Promise((r) => child.once('exit', r));
    child.send({ type: 'stop' } satisfies ToChild);
    await exited;
  } finally {
    if (child.exitCode === null) child.kill();
    await cp.stop();
  }
}
