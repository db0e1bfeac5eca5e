// npm run bench:drift — one drift check of a Release of 200 ConfigMaps in one namespace on the local
// control plane, reading the live objects with a GET each and with one LIST by the release label: requests
// made (as checkDrift counts them, and as the client sent them) and wall time, the median of a few checks
// after a warm-up (discovery, connections). BENCH_OBJECTS changes the count, BENCH_RUNS the checks.
import { FIELD_MANAGERS, LABEL_RELEASE } from '../src/api/constants.ts';
import type { InventoryEntry } from '../src/api/types.ts';
import { applyObject } from '../src/kube/apply.ts';
import { KubeClient, type RawRequest } from '../src/kube/client.ts';
import { checkDrift } from '../src/observer/drift/check.ts';
import type { Obj, Render } from '../src/render/types.ts';
import { startControlPlane } from '../src/testenv/index.ts';

const N = Number(process.env.BENCH_OBJECTS ?? 200);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const NS = 'bench';
const RELEASE_LABEL = `${NS}.drift`;
const REF = `sha256:${'b'.repeat(64)}`;

class CountingClient extends KubeClient {
  requests = 0;
  override async request<T = unknown>(req: RawRequest): Promise<T> {
    this.requests++;
    return super.request<T>(req);
  }
}

const cp = await startControlPlane({});
try {
  const client = new CountingClient(cp.kubeConfig);
  await applyObject(
    client,
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
    { fieldManager: 'bench' },
  );
  // The render holds the objects as rendered; the deployer applied them with the release label.
  const objects: Obj[] = Array.from({ length: N }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: NS },
    data: { k: `v${i}` },
  }));
  for (let i = 0; i < objects.length; i += 25) {
    await Promise.all(
      objects
        .slice(i, i + 25)
        .map((o) =>
          applyObject(
            client,
            { ...o, metadata: { ...o.metadata, labels: { [LABEL_RELEASE]: RELEASE_LABEL } } },
            { fieldManager: FIELD_MANAGERS.deployer, force: true },
          ),
        ),
    );
  }
  const render: Render = { hooks: [], objects };
  const entries: InventoryEntry[] = objects.map((o) => ({
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    namespace: NS,
    name: o.metadata.name,
    wave: 0,
    renderRef: REF,
  }));

  const check = async (listThreshold: number) => {
    const sent = client.requests;
    const t0 = performance.now();
    const c = await checkDrift(entries, {
      resolveTarget: async () => ({ kind: 'local', client }),
      render: async () => render,
      releaseLabel: RELEASE_LABEL,
      listThreshold,
    });
    const ms = performance.now() - t0;
    if (c.outcome.kind !== 'checked') throw new Error(`check failed: ${c.outcome.message}`);
    const inSync = c.outcome.entries.filter((e) => e.kind === 'checked' && e.result.kind === 'inSync');
    if (inSync.length !== N) throw new Error(`${inSync.length} of ${N} in sync`);
    return { ms, reads: c.reads, lists: c.lists, gets: c.gets, sent: client.requests - sent };
  };

  console.log(`## one drift check of a Release of ${N} ConfigMaps in one namespace (median of ${RUNS})\n`);
  console.log('| reads | requests (LIST + GET) | sent by the client | wall time |');
  console.log('| --- | --- | --- | --- |');
  for (const [label, threshold] of [
    ['GET per object', 0],
    ['LIST per kind/namespace', 20],
  ] as const) {
    await check(threshold); // warm-up: discovery and connections
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await check(threshold));
    runs.sort((a, b) => a.ms - b.ms);
    const m = runs[Math.floor(runs.length / 2)] as (typeof runs)[number];
    console.log(`| ${label} | ${m.reads} (${m.lists} + ${m.gets}) | ${m.sent} | ${m.ms.toFixed(1)} ms |`);
  }
} finally {
  await cp.stop();
}
