// A restart at rest changes nothing (issue 37's restart invariants, at a size CI affords): 300 Releases of
// 3 ConfigMaps each, health assessed, every tenth with a PostSync hook Job, all Succeeded and Healthy; then
// kill -9 of both processes and new ones started. The new processes re-list and reconcile every Release
// once, but apply nothing, write no status, inventory or render, create no hook Job and add no Event —
// counted from their own request counters (convoy_kube_requests_total), which start at zero. The one
// write a restart may send is the Event of a rollout transition of the last 15 minutes, under its fixed
// name (docs/design.md#status-assembly: a process killed between the status write and the send must not
// lose it); the API server refuses it as already there, so the Events stay the same. The new observer reads
// every object from its watch caches, none from the API.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { API_VERSION, PLURAL_RELEASES } from '../../src/api/constants.ts';
import type { Release } from '../../src/api/types.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { installDefaultRules } from '../../src/observer/health/loop/index.ts';
import { type ControlPlane, startControlPlane } from '../../src/testenv/index.ts';
import { installCrds } from '../support/crds.ts';
import { configMap, hookJob, inlineRelease } from '../support/hooks.ts';
import {
  type ManagerProcess,
  type ObserverProcess,
  startControllerManager,
  startObserver,
  tailLogs,
  wakeupsTo,
} from '../support/processes.ts';
import { condition } from '../support/release.ts';
import { createNamespace, DEFAULT_HEALTH, LEASE_NS } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

const RELEASES = 300;
const NAMESPACES = 10;
const WITH_HOOK_EVERY = 10;
const CREATE_PARALLEL = 8;

let cp: ControlPlane;
let client: KubeClient;
let work: string;
let manager: ManagerProcess | undefined;
let observer: ObserverProcess | undefined;

async function startBoth(): Promise<void> {
  manager = await startControllerManager({
    tenancy: { mode: 'cluster' },
    kubeconfigPath: cp.kubeconfigPath,
    identity: 'restart-steady',
    leaseNamespace: LEASE_NS,
    gitCacheDir: join(work, 'git-cache'),
  });
  observer = await startObserver({
    kubeconfigPath: cp.kubeconfigPath,
    leaseNamespace: LEASE_NS,
    wakeups: wakeupsTo(manager),
  });
}

const logs = () => (manager && observer ? tailLogs(manager, observer) : '');

before(async () => {
  cp = await startControlPlane({ workloads: true, nodes: 1 });
  client = new KubeClient(cp.kubeConfig);
  work = await mkdtemp(join(tmpdir(), 'convoy-restart-steady-e2e-'));
  await installCrds(cp.kubeConfig);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: LEASE_NS } });
  await installDefaultRules(client);
  for (let n = 0; n < NAMESPACES; n++) await createNamespace(client, `rs-${n}`);
  await startBoth();
});

after(async () => {
  // stop() resolves with the exit code or signal, also for a process already gone (idempotent).
  await observer?.stop();
  await manager?.stop();
  await cp?.stop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

/** Succeeded, Ready and Healthy for what it applied: the rest state a restart must leave alone. */
const atRest = (r: Release) =>
  r.status?.rollout?.state === 'Succeeded' &&
  condition(r, 'Ready')?.status === 'True' &&
  condition(r, 'Healthy')?.reason === 'Healthy';

async function countAtRest(): Promise<number> {
  const list = await client.request<{ items: Release[] }>({
    method: 'GET',
    path: `/apis/${API_VERSION}/${PLURAL_RELEASES}`,
  });
  return list.items.filter(atRest).length;
}

/** Both work queues empty on two reads a second apart: every pass the last change caused has finished. */
async function queuesEmpty(): Promise<boolean> {
  for (const p of [manager, observer]) {
    if ((await p?.metric('convoy_workqueue_depth')) !== 0) return false;
  }
  await new Promise((r) => setTimeout(r, 1_000));
  for (const p of [manager, observer]) {
    if ((await p?.metric('convoy_workqueue_depth')) !== 0) return false;
  }
  return true;
}

/** The names of the Events about Releases, sorted. */
async function releaseEvents(): Promise<string[]> {
  const events = await client.list<{ metadata: { namespace?: string; name: string } }>(
    { apiVersion: 'v1', kind: 'Event' },
    { fieldSelector: 'involvedObject.kind=Release' },
  );
  return events.map((e) => `${e.metadata.namespace}/${e.metadata.name}`).sort();
}

/** Every Release's status and every inventory as JSON, by namespace/name: what a restart must not change. */
async function snapshot(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [kind, plural] of [
    ['Release', PLURAL_RELEASES],
    ['ReleaseInventory', 'releaseinventories'],
  ] as const) {
    const list = await client.request<{ items: Array<Record<string, unknown> & { metadata: Meta }> }>({
      method: 'GET',
      path: `/apis/${API_VERSION}/${plural}`,
    });
    for (const o of list.items) {
      const { managedFields: _m, resourceVersion: _rv, ...meta } = o.metadata;
      out.set(`${kind} ${meta.namespace}/${meta.name}`, JSON.stringify({ ...o, metadata: meta }, null, 1));
    }
  }
  return out;
}

type Meta = { namespace?: string; name: string; resourceVersion?: string; managedFields?: unknown };

/** The objects whose JSON changed, and the changed lines of the first (for the assertion's message). */
function changes(before: Map<string, string>, after: Map<string, string>): string {
  const changed = [...after.keys()].filter((k) => before.get(k) !== after.get(k));
  const first = changed[0];
  if (first === undefined) return '';
  const was = new Set((before.get(first) ?? '').split('\n'));
  const now = new Set((after.get(first) ?? '').split('\n'));
  const lines = [
    ...[...was].filter((l) => !now.has(l)).map((l) => `- ${l}`),
    ...[...now].filter((l) => !was.has(l)).map((l) => `+ ${l}`),
  ];
  return `${changed.length} changed, e.g. ${first}:\n${lines.join('\n')}`;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The write requests a process sent, by "METHOD resource"; Leases and Events (counted apart) left out. */
async function writesOf(p: ManagerProcess | ObserverProcess): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const line of (await p.metrics()).split('\n')) {
    if (!line.startsWith('convoy_kube_requests_total{')) continue;
    const method = /method="([^"]*)"/.exec(line)?.[1] ?? '';
    const resource = /resource="([^"]*)"/.exec(line)?.[1] ?? '';
    const n = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (!WRITES.has(method) || resource === 'leases' || resource === 'events' || n === 0) continue;
    out[`${method} ${resource}`] = n;
  }
  return out;
}

test('kill -9 of both processes at rest: the new ones reconcile every Release and write nothing', async () => {
  let next = 0;
  await Promise.all(
    Array.from({ length: CREATE_PARALLEL }, async () => {
      for (let i = next++; i < RELEASES; i = next++) {
        const ns = `rs-${i % NAMESPACES}`;
        const objects = [
          configMap(`r${i}-a`),
          configMap(`r${i}-b`),
          configMap(`r${i}-c`, 0, { n: String(i) }),
        ];
        if (i % WITH_HOOK_EVERY === 0) objects.push(hookJob(`r${i}-post`, 'PostSync'));
        await client.create(
          inlineRelease(ns, `r${i}`, objects, {
            healthAssessment: DEFAULT_HEALTH,
            failurePolicy: { deadline: '10m', rollback: 'Never' },
            syncPolicy: {},
          }),
        );
      }
    }),
  );
  await waitFor(`all ${RELEASES} Releases at rest`, async () => (await countAtRest()) === RELEASES, {
    timeoutMs: 600_000,
    intervalMs: 2_000,
  }).catch((err: Error) => {
    throw new Error(`${err.message}\n${logs()}`);
  });
  await waitFor('both queues empty before the kill', queuesEmpty, { timeoutMs: 120_000 });
  // Events go out in the background, one at a time: all of them sent before the snapshot and the kill.
  await waitFor('every Event sent', async () => (await manager?.metric('convoy_events_queued')) === 0, {
    timeoutMs: 120_000,
  });
  const hookJobsBefore = (await client.list({ apiVersion: 'batch/v1', kind: 'Job' })).length;
  const eventsBefore = await releaseEvents();
  const stateBefore = await snapshot();
  assert.equal(hookJobsBefore, RELEASES / WITH_HOOK_EVERY, 'one PostSync Job per Release with a hook');

  assert.equal(await observer?.kill(), 'SIGKILL');
  assert.equal(await manager?.kill(), 'SIGKILL');
  const restartedAt = Date.now();
  await startBoth();
  const m = manager as ManagerProcess;
  const o = observer as ObserverProcess;
  // Steady again: the new controller-manager reconciled every Release once (its first LIST queues them
  // all), the observer assessed them, and both queues drained.
  await waitFor(
    `${RELEASES} reconciles by the new controller-manager`,
    async () => (await m.reconciles()) >= RELEASES,
    {
      timeoutMs: 300_000,
      intervalMs: 500,
    },
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n${logs()}`);
  });
  await waitFor('both queues empty after the restart', queuesEmpty, { timeoutMs: 120_000 });
  const steadyAfterS = (Date.now() - restartedAt) / 1000;

  assert.equal(changes(stateBefore, await snapshot()), '', 'statuses and inventories unchanged');
  assert.deepEqual(await writesOf(m), {}, `the controller-manager wrote after a restart at rest\n${logs()}`);
  assert.deepEqual(await writesOf(o), {}, `the observer wrote after a restart at rest\n${logs()}`);
  assert.deepEqual(await releaseEvents(), eventsBefore, 'no new Event about a Release');
  assert.ok(
    ((await m.metric('convoy_kube_requests_total', { method: 'POST', resource: 'events' })) ?? 0) <= RELEASES,
    'at most one recovered rollout Event per Release',
  );
  assert.equal(
    (await client.list({ apiVersion: 'batch/v1', kind: 'Job' })).length,
    hookJobsBefore,
    'no hook Job was created again',
  );
  assert.equal(await countAtRest(), RELEASES, 'every Release still at rest');
  // The new observer's passes waited for its watches' first LIST and read every recorded object from the
  // cache, by the version the apply returned: not one GET (docs/design.md#watched-reads).
  assert.equal(
    await o.metric('convoy_observer_live_reads_total', { from: 'api' }),
    0,
    `objects read from the API after the restart\n${logs()}`,
  );
  console.log(`# steady again ${steadyAfterS.toFixed(1)} s after the restart (${RELEASES} Releases)`);
});
