// npm run bench:inventory — how big convoy's records of one large Release get, against the apiserver's
// limits (a request body of 3 MiB; etcd stores at most 1.5 MiB per object), on one local control plane:
//  1. a ReleaseInventory in one object, as the controller (keys, version, wave, renderRef) and then the
//     health loop (state, message, assessedRenderRef) write it, for 1,000 … 10,000 entries: the request
//     body of each write, the stored object (managedFields included), and whether the API took it;
//  2. the same 10,000 entries in parts (src/kube/inventory-parts.ts): the biggest part's requests;
//  3. the render store (Secrets, gzip, chunked) with a render of 10,000 ConfigMaps, ~20 MiB of
//     manifests: chunks, the biggest request, put and get times;
//  4. the time to dry-run, apply, note and record 10,000 ConfigMaps (the deployer and the inventory
//     writer, which splits the inventory in parts);
//  5. the parts as convoy uses them: the read of all parts, the health loop's write part by part (the
//     biggest request and stored part against the limits), and the removal of two thirds (a prune);
//  0. first, without a cluster: the render of those ~20 MiB as plain YAML, as a reconcile makes it
//     (parse, assemble twice) the first time and from the render cache, and the longest the event loop
//     was blocked in each (what delays a Lease renewal); section 3 gives the same for the store's put/get.
// BENCH_INVENTORY_OBJECTS changes the 10,000.
import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { API_VERSION, FIELD_MANAGERS } from '../src/api/constants.ts';
import type { InventoryEntry, Release, ReleaseInventory } from '../src/api/types.ts';
import { applyAll, dryRunAll } from '../src/controller/release/act/deployer.ts';
import { InventoryWriter } from '../src/controller/release/act/inventory-writer.ts';
import { applyObject } from '../src/kube/apply.ts';
import { KubeClient, type RawRequest } from '../src/kube/client.ts';
import { isKubeError } from '../src/kube/errors.ts';
import { assignParts, partName, splitByPart } from '../src/kube/inventory-parts.ts';
import { readInventoryParts } from '../src/kube/inventory-read.ts';
import type { InventoryHealthItem } from '../src/observer/health/loop/plan.ts';
import { writeInventoryHealth } from '../src/observer/health/loop/writes.ts';
import { RenderCache } from '../src/render/cache.ts';
import { renderRef } from '../src/render/canonical.ts';
import { CachedPlainRenderer } from '../src/render/plain.ts';
import { assembleOutcome } from '../src/render/release.ts';
import type { Obj } from '../src/render/types.ts';
import { SecretRenderStore } from '../src/store/secrets.ts';
import { startControlPlane } from '../src/testenv/index.ts';
import { installCrds } from '../test/support/crds.ts';

const OBJECTS = Number(process.env.BENCH_INVENTORY_OBJECTS ?? 10_000);
const NS = 'bench-inv';
const REQUEST_LIMIT = 3 * 1024 * 1024;
const ETCD_LIMIT = 1.5 * 1024 * 1024;
const R = `sha256:${'a'.repeat(64)}`;

/** Remembers the body size of the last write request. */
class SizingClient extends KubeClient {
  lastBody = 0;
  /** The biggest write body and the count of writes since reset(). */
  maxBody = 0;
  writes = 0;
  reset() {
    this.maxBody = 0;
    this.writes = 0;
  }
  override async request<T = unknown>(req: RawRequest): Promise<T> {
    if (req.method !== 'GET') {
      this.lastBody = req.body === undefined ? 0 : Buffer.byteLength(JSON.stringify(req.body));
      this.maxBody = Math.max(this.maxBody, this.lastBody);
      this.writes++;
    }
    return super.request<T>(req);
  }
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MiB`;
const pct = (n: number, of: number) => `${Math.round((100 * n) / of)}%`;
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const print = (line: string) => process.stdout.write(`${line}\n`);

const key = (i: number) => ({
  group: '',
  kind: 'ConfigMap',
  namespace: NS,
  name: `cm-${String(i).padStart(5, '0')}`,
});
const controllerEntry = (i: number): InventoryEntry => ({
  ...key(i),
  version: 'v1',
  wave: i % 3,
  renderRef: R,
});
const healthEntry = (i: number): InventoryEntry => ({
  ...key(i),
  state: 'Healthy',
  message: 'exists',
  assessedRenderRef: R,
});
const inventory = (name: string, entries: InventoryEntry[]): ReleaseInventory => ({
  apiVersion: API_VERSION,
  kind: 'ReleaseInventory',
  metadata: { name, namespace: NS },
  entries,
});

async function write(client: SizingClient, body: ReleaseInventory, fieldManager: string) {
  try {
    await applyObject(client, body, { fieldManager: fieldManager as never, force: true });
    return { bytes: client.lastBody, error: undefined };
  } catch (err) {
    return { bytes: client.lastBody, error: isKubeError(err) ? err.apiMessage : String(err) };
  }
}

async function storedBytes(client: KubeClient, name: string): Promise<number> {
  const o = await client.get({ apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace: NS, name });
  return o === undefined ? 0 : Buffer.byteLength(JSON.stringify(o));
}

function configMaps(n: number, dataBytes: number): Obj[] {
  return Array.from({ length: n }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: key(i).name, namespace: NS },
    // random data, so gzip cannot make the render small: the store must really chunk ~20 MiB
    data: {
      payload: randomBytes(Math.ceil((dataBytes * 3) / 4))
        .toString('base64')
        .slice(0, dataBytes),
    },
  }));
}

/** `fn`'s time and the longest the event loop was blocked meanwhile. */
async function timed<T>(fn: () => Promise<T> | T): Promise<{ value: T; ms: number; blockedMs: number }> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const t = Date.now();
  // A tick first, so a synchronous fn shows as blocking the loop.
  await new Promise((r) => setTimeout(r, 20));
  const value = await fn();
  const ms = Date.now() - t - 20;
  await new Promise((r) => setTimeout(r, 20));
  h.disable();
  return { value, ms, blockedMs: h.max / 1e6 };
}
const blocked = (r: { ms: number; blockedMs: number }) =>
  `${secs(r.ms)} (event loop blocked ≤ ${secs(r.blockedMs)})`;

{
  print(`0. a render of ${OBJECTS} ConfigMaps as plain YAML (no cluster)`);
  const docs = configMaps(OBJECTS, 2048).map(
    (o) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${o.metadata.name}\ndata:\n  payload: "${(o as Obj & { data: { payload: string } }).data.payload}"\n`,
  );
  const files = Array.from({ length: Math.ceil(OBJECTS / 1000) }, (_, f) => ({
    path: `app/cms-${String(f).padStart(2, '0')}.yaml`,
    data: Buffer.from(docs.slice(f * 1000, (f + 1) * 1000).join('---\n')),
  }));
  const yamlBytes = files.reduce((n, f) => n + f.data.length, 0);
  const plain = new CachedPlainRenderer(new RenderCache());
  const reconcile = async () => {
    const manifests = await plain.render(files, {});
    assembleOutcome({}, 'rev', manifests, { releaseNamespace: NS });
    return assembleOutcome({}, 'rev', manifests, { releaseNamespace: NS });
  };
  const cold = await timed(reconcile);
  const warm = await timed(reconcile);
  if (!warm.value.ok || warm.value.render.objects.length !== OBJECTS) throw new Error('render failed');
  print(
    `  ${mib(yamlBytes)} of YAML in ${files.length} files: first reconcile (parse + 2 assemblies) ${blocked(cold)}; ` +
      `from the render cache ${blocked(warm)}; cache holds ${mib(plain.cache.bytes)} (estimated JSON)`,
  );
}

const cp = await startControlPlane({});
try {
  const client = new SizingClient(cp.kubeConfig);
  await installCrds(cp.kubeConfig);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  print(`\nlimits: request body ${mib(REQUEST_LIMIT)}, etcd object ${mib(ETCD_LIMIT)}`);

  print('\n1. one ReleaseInventory object (today’s layout)');
  for (const n of [1_000, 2_500, 5_000, OBJECTS]) {
    const name = `single-${n}`;
    const idx = Array.from({ length: n }, (_, i) => i);
    const c = await write(client, inventory(name, idx.map(controllerEntry)), FIELD_MANAGERS.controller);
    const h =
      c.error === undefined
        ? await write(client, inventory(name, idx.map(healthEntry)), FIELD_MANAGERS.healthInventory)
        : undefined;
    const stored = await storedBytes(client, name);
    print(
      `  ${String(n).padStart(6)} entries: controller write ${mib(c.bytes)} (${pct(c.bytes, REQUEST_LIMIT)} of the request limit)` +
        `${c.error === undefined ? '' : ` REFUSED: ${c.error}`}` +
        (h === undefined
          ? ''
          : `; health write ${mib(h.bytes)}${h.error === undefined ? '' : ` REFUSED: ${h.error}`}`) +
        `; stored ${mib(stored)} (${pct(stored, ETCD_LIMIT)} of etcd's)`,
    );
  }

  print(`\n2. ${OBJECTS} entries in parts (≤ 1,000 entries, ≤ 1 MiB estimated each)`);
  const keys = Array.from({ length: OBJECTS }, (_, i) => key(i));
  const parts = assignParts(new Map(), keys);
  const byPart = splitByPart(keys, parts);
  let maxC = 0;
  let maxH = 0;
  let maxStored = 0;
  let refused = 0;
  const t0 = Date.now();
  for (const [index, list] of byPart) {
    const name = partName('parted', index);
    const idx = list.map((k) => Number(k.name.slice(3)));
    const c = await write(client, inventory(name, idx.map(controllerEntry)), FIELD_MANAGERS.controller);
    const h = await write(client, inventory(name, idx.map(healthEntry)), FIELD_MANAGERS.healthInventory);
    if (c.error !== undefined || h.error !== undefined) refused++;
    maxC = Math.max(maxC, c.bytes);
    maxH = Math.max(maxH, h.bytes);
    maxStored = Math.max(maxStored, await storedBytes(client, name));
  }
  print(
    `  ${byPart.size} parts; biggest controller write ${mib(maxC)} (${pct(maxC, REQUEST_LIMIT)}), health write ${mib(maxH)}, ` +
      `stored ${mib(maxStored)} (${pct(maxStored, ETCD_LIMIT)} of etcd's); refused ${refused}; all parts written by both in ${secs(Date.now() - t0)}`,
  );

  print(`\n3. render store: a render of ${OBJECTS} ConfigMaps`);
  const objects = configMaps(OBJECTS, 2048);
  const render = { hooks: [], objects };
  const manifestBytes = objects.reduce((s, o) => s + Buffer.byteLength(JSON.stringify(o)), 0);
  const ref = renderRef(render);
  const sizes: number[] = [];
  class ChunkSizing extends KubeClient {
    override async request<T = unknown>(req: RawRequest): Promise<T> {
      if (req.method !== 'GET' && req.body !== undefined)
        sizes.push(Buffer.byteLength(JSON.stringify(req.body)));
      return super.request<T>(req);
    }
  }
  const store = new SecretRenderStore(new ChunkSizing(cp.kubeConfig));
  const put = await timed(() =>
    store.put(NS, 'big', ref, render, {
      revision: 'bench',
      owner: { apiVersion: API_VERSION, kind: 'Release', name: 'big', uid: 'bench-uid' },
    }),
  );
  const got = await timed(() => store.get(NS, 'big', ref));
  const back = got.value;
  if (back?.objects.length !== OBJECTS)
    throw new Error(`render store gave back ${back?.objects.length} objects`);
  const biggest = Math.max(...sizes);
  print(
    `  manifests ${mib(manifestBytes)} → ${sizes.length} chunk writes, biggest request ${mib(biggest)} (${pct(biggest, REQUEST_LIMIT)}); put ${blocked(put)}, get ${blocked(got)}`,
  );

  print(`\n4. dry run, apply and record ${OBJECTS} ConfigMaps (8 requests at once)`);
  const small = configMaps(OBJECTS, 16);
  let t = Date.now();
  await dryRunAll(client, small, { releaseLabel: `${NS}.big`, releaseUid: 'bench-uid' });
  const dryMs = Date.now() - t;
  t = Date.now();
  await applyAll(client, small, { releaseLabel: `${NS}.big`, releaseUid: 'bench-uid' });
  const applyMs = Date.now() - t;
  // a real Release (no controller runs here), so the garbage collector keeps the parts it owns
  const release = await client.create<Release>({
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name: 'big', namespace: NS },
    spec: { source: { inline: { manifests: 'x' } } },
  } as Release);
  const writer = new InventoryWriter(client, release, undefined);
  const all = small.map((_, i) => controllerEntry(i));
  client.reset();
  t = Date.now();
  await writer.notePending(all);
  const noteMs = Date.now() - t;
  const noteWrites = client.writes;
  const noteMax = client.maxBody;
  client.reset();
  t = Date.now();
  await writer.record(all);
  const recordMs = Date.now() - t;
  print(
    `  dry run ${secs(dryMs)}, apply ${secs(applyMs)} (${Math.round(OBJECTS / (applyMs / 1000))} objects/s); ` +
      `note pending ${secs(noteMs)} (${noteWrites} requests, biggest ${mib(noteMax)}); ` +
      `record ${secs(recordMs)} (${client.writes} requests, biggest ${mib(client.maxBody)})`,
  );

  print(`\n5. the inventory of ${OBJECTS} in parts, as the controller and the observer use it`);
  t = Date.now();
  const read = await readInventoryParts(client, { namespace: NS, name: 'big' });
  const readMs = Date.now() - t;
  if (read?.inventory.entries?.length !== OBJECTS)
    throw new Error(`read back ${read?.inventory.entries?.length} entries`);
  client.reset();
  t = Date.now();
  await writeInventoryHealth(
    client,
    read,
    all.map((e) => ({ ...healthEntry(Number(e.name.slice(3))) }) as InventoryHealthItem),
  );
  const healthMs = Date.now() - t;
  const healthWrites = client.writes;
  const healthMax = client.maxBody;
  const afterHealth = await readInventoryParts(client, { namespace: NS, name: 'big' });
  const stored = [...(afterHealth?.objects.values() ?? [])].map((o) => Buffer.byteLength(JSON.stringify(o)));
  print(
    `  ${afterHealth?.objects.size} parts; read (GET + LIST) ${secs(readMs)}; health write ${secs(healthMs)} ` +
      `(${healthWrites} requests, biggest ${mib(healthMax)}, ${pct(healthMax, REQUEST_LIMIT)} of the request limit); ` +
      `biggest part stored ${mib(Math.max(...stored))} (${pct(Math.max(...stored), ETCD_LIMIT)} of etcd's)`,
  );
  const pruneWriter = new InventoryWriter(client, release, afterHealth);
  const keep = Math.ceil(OBJECTS / 3);
  client.reset();
  t = Date.now();
  await pruneWriter.remove(all.slice(keep));
  const removeMs = Date.now() - t;
  const left = await readInventoryParts(client, { namespace: NS, name: 'big' });
  print(
    `  removing ${OBJECTS - keep} entries: ${secs(removeMs)} (${client.writes} requests); ` +
      `${left?.inventory.entries?.length} entries left in ${left?.objects.size} parts`,
  );
} finally {
  await cp.stop();
}
