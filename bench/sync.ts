// npm run bench:sync — 200 Releases of 10 objects each on one local control plane, reconciled by the
// release controller in this process. Prints: time from creating them to all Ready, API requests per
// reconcile in steady state (through the controller's KubeClient: reads and writes separately; the
// informers' watches are not requests per reconcile), and the process RSS.
import type { KubeConfig } from '@kubernetes/client-node';
import { API_VERSION } from '../src/api/constants.ts';
import type { Release } from '../src/api/types.ts';
import { registerReleaseController } from '../src/controller/release/controller.ts';
import { KubeClient, type RawRequest } from '../src/kube/client.ts';
import { Harness, newLogger } from '../src/runtime/index.ts';
import { startControlPlane } from '../src/testenv/index.ts';
import { installCrds } from '../test/support/crds.ts';

const RELEASES = Number(process.env.BENCH_RELEASES ?? 200);
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10);
const NAMESPACES = 20;

const counts = { reads: 0, writes: 0 };
class CountingClient extends KubeClient {
  override async request<T = unknown>(req: RawRequest): Promise<T> {
    if (req.method === 'GET') counts.reads++;
    else {
      counts.writes++;
      if (process.env.BENCH_DEBUG && counts.writes > Number(process.env.BENCH_DEBUG))
        console.log(req.method, req.path, JSON.stringify(req.body).slice(0, 1500));
    }
    return super.request<T>(req);
  }
}

const cp = await startControlPlane({});
try {
  const admin = new KubeClient(cp.kubeConfig);
  await installCrds(cp.kubeConfig);
  for (const name of ['convoy-system', ...Array.from({ length: NAMESPACES }, (_, i) => `bench-${i}`)]) {
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  const harness = new Harness({
    name: 'bench',
    kubeConfig: cp.kubeConfig,
    log: newLogger('bench', undefined, 'warn'),
    shards: { count: 1, namespace: 'convoy-system', role: 'controller', identity: 'bench' },
  });
  const { controller } = registerReleaseController(harness, {
    kubeConfig: cp.kubeConfig,
    leaseNamespace: 'convoy-system',
    gitCacheDir: '/tmp/convoy-bench-git',
    workers: 8,
    makeClient: (kc: KubeConfig) => new CountingClient(kc),
  });
  await harness.start();
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

  const manifests = (r: number) =>
    Array.from(
      { length: OBJECTS },
      (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r${r}-o${i}\ndata:\n  i: "${i}"\n`,
    ).join('---\n');
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
    if (performance.now() - t0 > 600_000) throw new Error(`only ${ready}/${RELEASES} Ready after 10 minutes`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const tReady = performance.now();

  // steady state: every key once more, nothing changed
  // let the wake-ups our own writes caused drain: wait until the queue is empty
  while (controller.queue.len() > 0) await new Promise((r) => setTimeout(r, 100));
  const before = await reconciles();
  const c0 = { ...counts };
  const list = await admin.list<Release>({ apiVersion: API_VERSION, kind: 'Release' });
  for (const r of list) controller.queue.add(`${r.metadata.namespace}/${r.metadata.name}`);
  while ((await reconciles()) < before + RELEASES) await new Promise((r) => setTimeout(r, 100));
  const n = (await reconciles()) - before;
  const rss = process.memoryUsage().rss;

  console.log(
    JSON.stringify(
      {
        releases: RELEASES,
        objectsPerRelease: OBJECTS,
        createSeconds: +((tCreated - t0) / 1000).toFixed(2),
        createToAllReadySeconds: +((tReady - t0) / 1000).toFixed(2),
        steadyReconciles: n,
        steadyReadsPerReconcile: +((counts.reads - c0.reads) / n).toFixed(3),
        steadyWritesPerReconcile: +((counts.writes - c0.writes) / n).toFixed(3),
        controllerRssMiB: +(rss / 1024 / 1024).toFixed(1),
      },
      null,
      2,
    ),
  );
  await harness.stop();
} finally {
  await cp.stop();
}
