// stageSync's order of writes over an injected recording client (an in-memory cluster): each wave's keys
// are noted as pending in the inventory before the first object of the wave is applied, and leave
// pending in the write that records them; a wave that fails part-way records what the API accepted and
// leaves the rest pending; the next sync deletes what an interrupted one left pending and the render left,
// only when the live object carries the Release's uid. The real apiserver runs the same in
// test/e2e/release-inventory-pending.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_VERSION } from '../../api/constants.ts';
import type { Release } from '../../api/types.ts';
import type { KubeClient, RawRequest } from '../../kube/client.ts';
import { readInventoryParts } from '../../kube/inventory-read.ts';
import { renderRef } from '../../render/canonical.ts';
import { InlineSource } from '../../render/inline.ts';
import type { Obj } from '../../render/types.ts';
import type { ReleaseDeps } from './deps.ts';
import { hookWorkloadName } from './hooks/index.ts';
import { stageSync } from './stage-sync.ts';
import { DryRunMemo } from './sync/index.ts';

const UID = 'uid-web';

type Stored = Obj & { pending?: { name: string }[]; entries?: { name: string }[] };

/** An in-memory cluster: objects by "kind/namespace/name", and a log of what was written, in order. */
function fakeCluster(opts: { failApplyOf?: string; live?: Stored[] } = {}) {
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
      } else {
        if (body.metadata.name === opts.failApplyOf) throw new Error(`${body.metadata.name}: refused`);
        log.push(`apply ${body.metadata.name}`);
        calls.push(`apply ${body.metadata.name}`);
      }
      objects.set(req.path, body);
      return body;
    },
  };
  return { client: client as unknown as KubeClient, objects, log, calls };
}

const cm = (name: string, wave: number): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'app', annotations: { 'convoy.kumodo.io/sync-wave': String(wave) } },
  data: { k: 'v' },
});

const release: Release = {
  apiVersion: API_VERSION,
  kind: 'Release',
  metadata: { name: 'web', namespace: 'app', uid: UID, generation: 1 },
  spec: { source: { inline: { manifests: 'unused: the render is given' } } },
};

async function sync(
  objects: Obj[],
  cluster: ReturnType<typeof fakeCluster>,
  opts: { hooks?: Obj[]; release?: Release; failPersist?: boolean; dryRuns?: DryRunMemo } = {},
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
    ...(opts.dryRuns === undefined ? {} : { dryRuns: opts.dryRuns }),
  } as ReleaseDeps;
  const inventory = (await readInventoryParts(client, { namespace: 'app', name: 'web' }))?.inventory;
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

const waitPrevious = (wave: number): Release => ({
  ...release,
  spec: { ...release.spec, waves: [{ wave, healthStrategy: 'WaitPrevious' }] },
});

describe('stageSync: the executor runs the plan in order and stops at the first hold or failure', () => {
  it('dry run of the whole render, persist, then each wave noted, applied and recorded', async () => {
    const cluster = fakeCluster();
    const result = await sync([cm('a', 0), cm('b', 1)], cluster);
    assert.equal(result.kind, 'synced');
    assert.deepEqual(cluster.calls, [
      'dry-run a',
      'dry-run b',
      'store R',
      'inventory entries=[] pending=[a]',
      'apply a',
      'inventory entries=[a] pending=[b]',
      'apply b',
      'inventory entries=[a,b] pending=[]',
    ]);
  });

  it('a failed dry run writes nothing: no render stored, no inventory, no apply', async () => {
    const cluster = fakeCluster();
    const failing = { ...cluster, client: failDryRun(cluster.client, 'b') };
    const result = await sync([cm('a', 0), cm('b', 1)], failing);
    assert.equal(result.kind, 'failed');
    assert.equal(result.kind === 'failed' ? result.attempt : 'x', undefined);
    assert.deepEqual(cluster.calls, ['dry-run a']);
  });

  it('a failed persist stops before the inventory and the waves', async () => {
    const cluster = fakeCluster();
    const result = await sync([cm('a', 0)], cluster, { failPersist: true });
    assert.match(
      result.kind === 'failed' ? result.error.message : result.kind,
      /storing render .*store down/,
    );
    assert.deepEqual(cluster.calls, ['dry-run a', 'store R']);
  });

  it('a WaitPrevious gate that holds stops before the wave is noted: nothing of it is pending or applied', async () => {
    const cluster = fakeCluster();
    const result = await sync([cm('a', 0), cm('b', 1)], cluster, { release: waitPrevious(1) });
    assert.equal(result.kind === 'held' ? result.reason : result.kind, 'WaitingForWaveHealth');
    assert.equal(result.kind === 'held' ? result.attempt.applied : true, false);
    assert.deepEqual(cluster.calls.slice(-3), [
      'inventory entries=[] pending=[a]',
      'apply a',
      'inventory entries=[a] pending=[]',
    ]);
  });

  it('a render dry-ran in full is not dry-run again; after a failed apply it is', async () => {
    const dryRuns = new DryRunMemo();
    const cluster = fakeCluster();
    const held = await sync([cm('a', 0), cm('b', 1)], cluster, { release: waitPrevious(1), dryRuns });
    assert.equal(held.kind, 'held');
    assert.deepEqual(cluster.calls.slice(0, 2), ['dry-run a', 'dry-run b']);
    cluster.calls.length = 0;
    // the same render again (the gate still holds): no dry run, straight to persist and the waves
    await sync([cm('a', 0), cm('b', 1)], cluster, { release: waitPrevious(1), dryRuns });
    assert.equal(cluster.calls[0], 'store R');
    assert.equal(cluster.calls.filter((c) => c.startsWith('dry-run')).length, 0);

    const failing = fakeCluster({ failApplyOf: 'b' });
    const failed = await sync([cm('a', 0), cm('b', 1)], failing, { dryRuns });
    assert.equal(failed.kind, 'failed');
    failing.calls.length = 0;
    await sync([cm('a', 0), cm('b', 1)], failing, { dryRuns });
    assert.deepEqual(failing.calls.slice(0, 2), ['dry-run a', 'dry-run b']);
  });

  it('WaitPrevious on the first wave gates nothing', async () => {
    const cluster = fakeCluster();
    const result = await sync([cm('a', 0), cm('b', 1)], cluster, { release: waitPrevious(0) });
    assert.equal(result.kind, 'synced');
  });
});

/** The client with the dry run of `name` refused (as an admission webhook would). */
function failDryRun(client: KubeClient, name: string): KubeClient {
  const request = client.request.bind(client);
  return Object.assign(Object.create(client) as KubeClient, {
    request: (req: RawRequest) =>
      req.query?.dryRun === 'All' && (req.body as Obj).metadata.name === name
        ? Promise.reject(new Error(`${name}: denied`))
        : request(req),
  });
}

describe('stageSync: nothing untracked', () => {
  it('notes each wave as pending before applying it and settles it in the write that records it', async () => {
    const cluster = fakeCluster();
    const result = await sync([cm('a', 0), cm('b', 1), cm('c', 1)], cluster);
    assert.equal(result.kind, 'synced');
    assert.deepEqual(cluster.log, [
      'inventory entries=[] pending=[a]',
      'apply a',
      // wave 0 recorded and wave 1 (no gate) noted in one write, before wave 1's apply
      'inventory entries=[a] pending=[b,c]',
      'apply b',
      'apply c',
      'inventory entries=[a,b,c] pending=[]',
    ]);
    const live = cluster.objects.get('ConfigMap/app/b');
    assert.equal(live?.metadata.annotations?.['convoy.kumodo.io/release-uid'], UID);
  });

  it('a wave that fails part-way records what the API took and keeps the rest pending', async () => {
    const cluster = fakeCluster({ failApplyOf: 'c' });
    const result = await sync([cm('a', 0), cm('b', 1), cm('c', 1)], cluster);
    assert.equal(result.kind, 'failed');
    assert.match(result.kind === 'failed' ? result.error.message : '', /apply of wave 1 failed: .*c/);
    assert.deepEqual(cluster.log.slice(-2), ['apply b', 'inventory entries=[a,b] pending=[c]']);
  });

  it('the next sync deletes what was left pending and left the render only when convoy set this uid on it', async () => {
    const mine = (name: string, uid: string, manager = 'convoy'): Stored => ({
      ...cm(name, 1),
      metadata: {
        name,
        namespace: 'app',
        annotations: { 'convoy.kumodo.io/release-uid': uid },
        managedFields: [
          {
            manager,
            operation: manager === 'convoy' ? 'Apply' : 'Update',
            fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:convoy.kumodo.io/release-uid': {} } } },
          },
        ],
      },
    });
    const key = (name: string) => ({ group: '', kind: 'ConfigMap', namespace: 'app', name, version: 'v1' });
    const inventory: Stored = {
      apiVersion: API_VERSION,
      kind: 'ReleaseInventory',
      metadata: { name: 'web', namespace: 'app' },
      entries: [],
      pending: [key('gone'), key('foreign'), key('forged'), key('never-created'), key('a')],
    };
    const cluster = fakeCluster({
      // forged: this Release's uid, annotated by someone else (kubectl annotate)
      live: [
        inventory,
        mine('gone', UID),
        mine('foreign', 'another-uid'),
        mine('forged', UID, 'kubectl-annotate'),
      ],
    });
    const result = await sync([cm('a', 0)], cluster);
    assert.equal(result.kind, 'synced');
    assert.deepEqual(cluster.log, [
      'delete gone',
      // `a` is in the render: it stays pending until its wave records it
      'inventory entries=[] pending=[a]',
      'apply a',
      'inventory entries=[a] pending=[]',
    ]);
    assert.ok(cluster.objects.has('ConfigMap/app/foreign'), 'another Release’s object is left alone');
    assert.ok(cluster.objects.has('ConfigMap/app/forged'), 'a copied annotation proves nothing');
    const notes = result.kind === 'synced' ? result.notes.join('\n') : '';
    assert.match(notes, /pruned 1 objects an interrupted sync applied/);
    assert.match(
      notes,
      /left 2 objects that an interrupted sync noted in place: convoy's field manager did not set/,
    );
  });
});

describe('stageSync: held for PostSync hooks', () => {
  const smoke: Obj = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'smoke', namespace: 'app', annotations: { 'convoy.kumodo.io/hook': 'PostSync' } },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }] } } },
  };
  const objects = [cm('a', 0), cm('b', 1)];
  const R = renderRef({ hooks: [smoke], objects });
  const entry = (name: string, wave: number) => ({
    group: '',
    kind: 'ConfigMap',
    namespace: 'app',
    name,
    version: 'v1',
    wave,
    renderRef: R,
  });
  const armed = {
    name: 'smoke',
    phase: 'PostSync' as const,
    kind: 'Job' as const,
    renderRef: R,
    workloadName: hookWorkloadName('smoke', R),
    namespace: 'app',
    createdAt: '2026-01-01T00:00:00Z',
  };
  const held: Release = {
    ...release,
    status: {
      lastAttempted: {
        renderRef: R,
        revision: 'inline:x',
        time: '2026-01-01T00:00:00Z',
        applied: false,
        reason: 'WaitingForHook',
      },
    },
  };
  const inventory = (hook: Record<string, unknown>, extra: Partial<Stored> = {}): Stored =>
    ({
      apiVersion: API_VERSION,
      kind: 'ReleaseInventory',
      metadata: { name: 'web', namespace: 'app' },
      entries: [entry('a', 0), entry('b', 1)],
      hooks: [hook],
      ...extra,
    }) as Stored;

  it('applies and writes nothing while the hook runs: the observer records its result in an inventory left alone', async () => {
    const cluster = fakeCluster({ live: [inventory(armed)] });
    const result = await sync(objects, cluster, { hooks: [smoke], release: held });
    assert.equal(result.kind, 'held');
    assert.match(result.kind === 'held' ? result.message : '', /waiting for PostSync hooks: smoke/);
    assert.deepEqual(cluster.log, []);
  });

  it('the hook Succeeded: the sync of R ends applied, without applying its waves again', async () => {
    const done = { ...armed, state: 'Succeeded', reason: 'Succeeded', finishedAt: '2026-01-01T00:00:05Z' };
    const cluster = fakeCluster({ live: [inventory(done)] });
    const result = await sync(objects, cluster, { hooks: [smoke], release: held });
    assert.equal(result.kind, 'synced');
    assert.equal(result.kind === 'synced' ? result.attempt.applied : undefined, true);
    assert.deepEqual(cluster.log, []);
  });

  it('an interrupted sync left keys pending: the waves run again in full', async () => {
    const cluster = fakeCluster({ live: [inventory(armed, { pending: [entry('b', 1)] })] });
    const result = await sync(objects, cluster, { hooks: [smoke], release: held });
    assert.equal(result.kind, 'held');
    assert.ok(cluster.log.includes('apply a'), cluster.log.join('\n'));
    assert.ok(cluster.log.includes('apply b'), cluster.log.join('\n'));
  });
});
