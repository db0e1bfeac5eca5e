// Shared by the stageSync tests (stage-sync*.test.ts): an injected recording client (an in-memory
// cluster) and a sync of a given render through stageSync with the deps it needs.
import { API_VERSION } from '../../../api/constants.ts';
import type { Release, ReleaseInventory } from '../../../api/types.ts';
import type { KubeClient, RawRequest } from '../../../kube/client.ts';
import { readInventoryParts } from '../../../kube/inventory-read.ts';
import { renderRef } from '../../../render/canonical.ts';
import { InlineSource } from '../../../render/inline.ts';
import type { Obj } from '../../../render/types.ts';
import type { DryRunMemo } from '../decide/sync/index.ts';
import { newProcessMemory, type ReleaseDeps } from '../deps.ts';
import { stageSync } from './stage-sync.ts';

export const UID = 'uid-web';

export type Stored = Obj & { pending?: { name: string }[]; entries?: { name: string }[] };

/** An in-memory cluster: objects by "kind/namespace/name", and a log of what was written, in order. */
export function fakeCluster(opts: { failApplyOf?: string; live?: Stored[] } = {}) {
  const objects = new Map<string, Stored>();
  const log: string[] = [];
  // every call in order, the dry runs and the render store too (log has the writes only)
  const calls: string[] = [];
  const id = (ref: { kind: string; namespace?: string | undefined; name: string }) =>
    `${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
  for (const o of opts.live ?? []) objects.set(id({ ...o.metadata, kind: o.kind }), o);
  const client = {
    pathOf: async (ref: { kind: string; namespace?: string; name: string }) => id(ref),
    resourceFor: async () => ({ namespaced: true }),
    get: async (ref: { kind: string; namespace?: string; name: string }) => objects.get(id(ref)),
    // the parts of a large inventory (none here: a few entries fit part 0)
    list: async () => [],
    create: async (obj: Stored) => {
      const created = { ...obj, metadata: { ...obj.metadata, uid: `uid-${obj.metadata.name}` } };
      objects.set(id({ ...obj.metadata, kind: obj.kind }), created);
      return created;
    },
    delete: async (ref: { kind: string; namespace?: string; name: string }) => {
      log.push(`delete ${ref.name}`);
      calls.push(`delete ${ref.name}`);
      objects.delete(id(ref));
    },
    request: async (req: RawRequest) => {
      if (Array.isArray(req.body)) return removeItems(req.path, req.body as JsonPatchOp[]);
      const body = req.body as Stored;
      if (req.method !== 'PATCH') throw new Error(`unexpected ${req.method} ${req.path}`);
      if (req.query?.dryRun === 'All') {
        calls.push(`dry-run ${body.metadata.name}`);
        return body;
      }
      if (body.kind === 'ReleaseInventory') {
        const names = (l?: { name: string }[]) => (l ?? []).map((e) => e.name).join(',');
        log.push(`inventory entries=[${names(body.entries)}] pending=[${names(body.pending)}]`);
        calls.push(`inventory entries=[${names(body.entries)}] pending=[${names(body.pending)}]`);
        // The observer's fields of a hook entry are its own (Server-Side Apply): the controller's write keeps them.
        const before = objects.get(req.path) as { hooks?: { name: string }[] } | undefined;
        const hooks = (body as { hooks?: { name: string }[] }).hooks;
        if (hooks !== undefined && before?.hooks !== undefined) {
          const observed = new Map(before.hooks.map((h) => [h.name, h]));
          (body as { hooks?: unknown[] }).hooks = hooks.map((h) => ({ ...observed.get(h.name), ...h }));
        }
      } else {
        if (body.metadata.name === opts.failApplyOf) throw new Error(`${body.metadata.name}: refused`);
        log.push(`apply ${body.metadata.name}`);
        calls.push(`apply ${body.metadata.name}`);
      }
      objects.set(req.path, body);
      return body;
    },
  };
  /** The inventory's explicit removal patch (src/kube/inventory.ts): its remove ops, the tests trusted. */
  const removeItems = (path: string, ops: readonly JsonPatchOp[]) => {
    const stored = objects.get(path) as (Stored & Record<string, { name: string }[]>) | undefined;
    if (stored === undefined) throw Object.assign(new Error('not found'), { code: 404 });
    const next: Record<string, { name: string }[]> = {};
    const removed: string[] = [];
    for (const op of ops.filter((o) => o.op === 'remove')) {
      const [, list = '', index = ''] = op.path.split('/');
      const items = next[list] ?? [...(stored[list] ?? [])];
      removed.push(...items.splice(Number(index), 1).map((e) => e.name));
      next[list] = items;
    }
    log.push(`inventory remove [${removed.join(',')}]`);
    calls.push(`inventory remove [${removed.join(',')}]`);
    const updated = { ...stored, ...next } as Stored;
    objects.set(path, updated);
    return updated;
  };
  return { client: client as unknown as KubeClient, objects, log, calls };
}

type JsonPatchOp = { readonly op: string; readonly path: string };

export const cm = (name: string, wave: number): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'app', annotations: { 'convoy.kumodo.io/sync-wave': String(wave) } },
  data: { k: 'v' },
});

export const release: Release = {
  apiVersion: API_VERSION,
  kind: 'Release',
  metadata: { name: 'web', namespace: 'app', uid: UID, generation: 1 },
  spec: { source: { inline: { manifests: 'unused: the render is given' } } },
};

export async function sync(
  objects: Obj[],
  cluster: ReturnType<typeof fakeCluster>,
  opts: {
    hooks?: Obj[];
    release?: Release;
    failPersist?: boolean;
    dryRuns?: DryRunMemo;
    /** The reconcile's snapshot (a stale cache); else the cluster's inventory as it is. */
    observed?: ReleaseInventory;
  } = {},
) {
  const render = { hooks: opts.hooks ?? [], objects };
  const R = renderRef(render);
  const client = cluster.client;
  const deps = {
    local: client,
    store: {
      put: (_ns: string, _name: string, ref: string) => {
        cluster.calls.push(`store ${ref === R ? 'R' : ref}`);
        return opts.failPersist === true ? Promise.reject(new Error('store down')) : Promise.resolve();
      },
    } as unknown as ReleaseDeps['store'],
    sources: { inline: InlineSource },
    resolveTarget: () => Promise.reject(new Error('not used')),
    observerLive: () => true,
    cachedInventory: () => undefined,
    now: () => Date.UTC(2026, 0, 1),
    log: { info() {}, warn() {}, error() {}, debug() {} } as unknown as ReleaseDeps['log'],
    memory: readingMemory(opts.release ?? release, opts.dryRuns),
  } as ReleaseDeps;
  const inventory =
    opts.observed ?? (await readInventoryParts(client, { namespace: 'app', name: 'web' }))?.inventory;
  return stageSync(
    {
      release: opts.release ?? release,
      rendered: {
        renderRef: R,
        revision: 'inline:x',
        render,
        target: { name: 'local', kubeConfig: {} as never, client, readClient: client },
        pinned: false,
      },
      forced: false,
      observed: { inventory, observerLive: true },
    },
    deps,
  );
}

export const waitPrevious = (wave: number): Release => ({
  ...release,
  spec: { ...release.spec, waves: [{ wave, healthStrategy: 'WaitPrevious' }] },
});

/** The client with the dry run of `name` refused (as an admission webhook would). */
export function failDryRun(client: KubeClient, name: string): KubeClient {
  const request = client.request.bind(client);
  return Object.assign(Object.create(client) as KubeClient, {
    request: (req: RawRequest) =>
      req.query?.dryRun === 'All' && (req.body as Obj).metadata.name === name
        ? Promise.reject(new Error(`${name}: denied`))
        : request(req),
  });
}

/**
 * The writes of ungated waves in the log, on top of `before`: the first wave's keys noted pending, then for
 * each wave its applies and the write that records it and notes the next wave.
 */
export function waveWrites(before: readonly string[], ...waves: readonly (readonly string[])[]): string[] {
  const out = [`inventory entries=[${before.join(',')}] pending=[${(waves[0] ?? []).join(',')}]`];
  let recorded = [...before];
  for (const [i, wave] of waves.entries()) {
    recorded = [...recorded, ...wave];
    out.push(...wave.map((name) => `apply ${name}`));
    // the write that records a wave also notes the next one when no gate holds it
    out.push(`inventory entries=[${recorded.join(',')}] pending=[${(waves[i + 1] ?? []).join(',')}]`);
  }
  return out;
}

/**
 * A process memory for syncs over the fake cluster, whose cache never syncs: the Release counts as opened
 * before, so every sync reads the inventory from the API, and a shared DryRunMemo only when a test passes one.
 */
export function readingMemory(r: Release, dryRuns: DryRunMemo | undefined): ReleaseDeps['memory'] {
  const memory = newProcessMemory();
  memory.inventoriesOpened.add(r.metadata.uid ?? '');
  return dryRuns === undefined ? memory : { ...memory, dryRuns };
}
