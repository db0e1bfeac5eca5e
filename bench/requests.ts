// npm run bench:requests — kube-apiserver's CPU per request, for each kind of request convoy sends while
// it rolls out one Release of 10 ConfigMaps, on one local control plane without convoy running: each kind
// is sent REQUESTS times (8 at once) to REQUESTS Releases, and the apiserver's CPU seconds (/proc) over the
// batch are divided by its count. The bodies have the shapes and sizes convoy writes for such a Release
// (traced from both processes: keys, renderRefs, messages, conditions); the Release write order is
// convoy's, so each write meets the managedFields the earlier ones left. It prints the table and what one
// Release costs with the request mix `npm run bench:floor` counts (docs/development.md, docs/design.md#observer-status):
// what the floor's one apply per object costs against convoy's records of it. Env:
// CONVOY_BENCH_REQUESTS (default 400).
import { API_VERSION, FIELD_MANAGERS, FINALIZER } from '../src/api/constants.ts';
import type { ObjectHeader } from '../src/api/types.ts';
import { applyObject } from '../src/kube/apply.ts';
import { KubeClient } from '../src/kube/client.ts';
import { startControlPlane } from '../src/testenv/index.ts';
import { installCrds } from '../test/support/crds.ts';
import { DEFAULT_HEALTH } from '../test/support/system.ts';
import { configMapManifests } from './fixtures.ts';
import { proc } from './procs.ts';

const N = Number(process.env.CONVOY_BENCH_REQUESTS ?? 400);
const OBJECTS = 10;
const PARALLEL = 8;
const NS = 'bench-requests';
const REF = `sha256:${'a599b11bd3ef4ad917054a73a4501ee8f89dce9370b0385ccc3f81c386e7a3ff'}`;
const REVISION = 'inline:e2dd58a81a1e';

const cp = await startControlPlane({ workloads: false, nodes: 0 });
const client = new KubeClient(cp.kubeConfig);
const apiserverCpu = async () =>
  (await proc(cp.processes().find((p) => p.name === 'kube-apiserver')?.pid ?? 0)).cpuSeconds;
const rows: { kind: string; cpuMs: number; wallMs: number }[] = [];

/** Sends f(0…N-1), PARALLEL at once, and records the apiserver's CPU per request. */
async function batch(kind: string, f: (i: number) => Promise<unknown>): Promise<void> {
  const [cpu0, t0] = [await apiserverCpu(), performance.now()];
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      for (let i = next++; i < N; i = next++) await f(i);
    }),
  );
  const cpuMs = (((await apiserverCpu()) - cpu0) * 1000) / N;
  rows.push({ kind, cpuMs, wallMs: (performance.now() - t0) / N });
}

const now = () => `${new Date().toISOString().slice(0, 19)}Z`;
const meta = (i: number) => ({ name: `r${i}`, namespace: NS });
const configMap = (i: number, j: number) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `r${i}-o${j}`, namespace: NS, labels: { 'convoy.kumodo.io/release': `${NS}.r${i}` } },
  data: { i: String(j) },
});
const condition = (type: string, status: string, reason: string, message: string) => ({
  type,
  status,
  reason,
  message,
  observedGeneration: 1,
  lastTransitionTime: now(),
});
const key = (i: number, j: number) => ({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  namespace: NS,
  name: `r${i}-o${j}`,
});
const keys = <T>(i: number, f: (k: ReturnType<typeof key>, j: number) => T) =>
  Array.from({ length: OBJECTS }, (_, j) => f(key(i, j), j));
const controllerStatus = (i: number, rollout: string) => ({
  apiVersion: API_VERSION,
  kind: 'Release',
  metadata: meta(i),
  status: {
    observedGeneration: 1,
    conditions: [
      condition('Ready', 'True', 'Synced', `applied revision ${REVISION} (${REF.slice(0, 19)}…)`),
      condition('Stalled', 'False', 'NotStalled', ''),
    ],
    currentRender: { renderRef: REF, revision: REVISION },
    history: [{ appliedAt: now(), renderRef: REF, revision: REVISION }],
    lastAttempted: { applied: true, renderRef: REF, revision: REVISION, time: now() },
    rollout: { state: rollout, renderRef: REF, startedAt: now() },
  },
});
const as = (o: object) => o as unknown as ObjectHeader;
const apply = (o: object, fieldManager: string, extra: { dryRun?: boolean; subresource?: 'status' } = {}) =>
  applyObject(client, as(o), { fieldManager, force: true, ...extra });

try {
  await installCrds(cp.kubeConfig);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await batch('POST releases (the user)', (i) =>
    client.create(
      as({
        apiVersion: API_VERSION,
        kind: 'Release',
        metadata: meta(i),
        spec: {
          source: { inline: { manifests: configMapManifests(i, OBJECTS) } },
          render: { targetNamespace: NS },
          healthAssessment: DEFAULT_HEALTH,
        },
      }),
    ),
  );
  await batch('APPLY releases (finalizer)', (i) =>
    apply(
      { apiVersion: API_VERSION, kind: 'Release', metadata: { ...meta(i), finalizers: [FINALIZER] } },
      FIELD_MANAGERS.controller,
    ),
  );
  await batch('POST secrets (render store)', (i) =>
    client.create(
      as({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `r${i}-render`, namespace: NS },
        data: { render: Buffer.from(configMapManifests(i, OBJECTS)).toString('base64') },
      }),
    ),
  );
  await batch('APPLY releaseinventories (note pending)', (i) =>
    apply(
      {
        apiVersion: API_VERSION,
        kind: 'ReleaseInventory',
        metadata: meta(i),
        pending: keys(i, (k) => ({ ...k, wave: 0, renderRef: REF })),
      },
      FIELD_MANAGERS.controller,
    ),
  );
  await batch('APPLY configmaps (dry run, new)', (i) =>
    apply(configMap(i, 0), FIELD_MANAGERS.deployer, { dryRun: true }),
  );
  await batch('APPLY configmaps (create)', (i) => apply(configMap(i, 0), FIELD_MANAGERS.deployer));
  await batch('APPLY releaseinventories (record)', (i) =>
    apply(
      {
        apiVersion: API_VERSION,
        kind: 'ReleaseInventory',
        metadata: meta(i),
        entries: keys(i, (k, j) => ({
          ...k,
          wave: 0,
          renderRef: REF,
          appliedResourceVersion: String(1000 + j),
        })),
      },
      FIELD_MANAGERS.controller,
    ),
  );
  await batch('APPLY releases/status (controller: applied)', (i) =>
    apply(controllerStatus(i, 'Progressing'), FIELD_MANAGERS.controller, { subresource: 'status' }),
  );
  await batch('POST events', (i) =>
    client.create(
      as({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `r${i}.applied`, namespace: NS },
        involvedObject: { apiVersion: API_VERSION, kind: 'Release', ...meta(i) },
        reason: 'Applied',
        message: `applied revision ${REVISION}`,
        type: 'Normal',
      }),
    ),
  );
  await batch('APPLY releaseinventories (health)', (i) =>
    apply(
      {
        apiVersion: API_VERSION,
        kind: 'ReleaseInventory',
        metadata: meta(i),
        entries: keys(i, (k) => ({
          ...k,
          state: 'Healthy',
          assessedRenderRef: REF,
          rule: 'default/standard-conditions',
          message:
            'no rule for this kind; passes the generic status checks (rule default/standard-conditions)',
        })),
      },
      FIELD_MANAGERS.healthInventory,
    ),
  );
  await batch('APPLY releases/status (observer)', (i) =>
    apply(
      {
        apiVersion: API_VERSION,
        kind: 'Release',
        metadata: meta(i),
        status: {
          conditions: [
            condition('Healthy', 'True', 'Healthy', `${OBJECTS} objects healthy`),
            condition('Drifted', 'False', 'InSync', `${OBJECTS} of ${OBJECTS} objects in sync`),
          ],
          healthSummary: { healthy: OBJECTS, progressing: 0, degraded: 0, unknown: 0, total: OBJECTS },
          driftSummary: { drifted: 0, total: OBJECTS },
        },
      },
      FIELD_MANAGERS.observer,
      { subresource: 'status' },
    ),
  );
  await batch('APPLY releases/status (controller: succeeded)', (i) =>
    apply(controllerStatus(i, 'Succeeded'), FIELD_MANAGERS.controller, { subresource: 'status' }),
  );
  await batch('APPLY configmaps (dry run, unchanged)', (i) =>
    apply(configMap(i, 0), FIELD_MANAGERS.deployer, { dryRun: true }),
  );
  await batch('APPLY configmaps (unchanged)', (i) => apply(configMap(i, 0), FIELD_MANAGERS.deployer));
  await batch('GET releases', (i) => client.get({ apiVersion: API_VERSION, kind: 'Release', ...meta(i) }));
  await batch('GET configmaps', (i) =>
    client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: `r${i}-o0` }),
  );
} finally {
  await cp.stop();
}

const width = Math.max(...rows.map((r) => r.kind.length));
console.log(`kube-apiserver CPU per request (${N} of each, ${PARALLEL} at once)`);
for (const r of rows)
  console.log(
    `  ${r.kind.padEnd(width)}  ${r.cpuMs.toFixed(2).padStart(6)} ms CPU  ${r.wallMs.toFixed(2).padStart(6)} ms wall`,
  );
const cpu = (kind: string) => rows.find((r) => r.kind === kind)?.cpuMs ?? Number.NaN;
const parts: [string, number][] = [
  [
    'ConfigMaps: dry run and apply of each',
    OBJECTS * (cpu('APPLY configmaps (dry run, new)') + cpu('APPLY configmaps (create)')),
  ],
  [
    'the inventory: note, record, health',
    cpu('APPLY releaseinventories (note pending)') +
      cpu('APPLY releaseinventories (record)') +
      cpu('APPLY releaseinventories (health)'),
  ],
  [
    'the status: controller twice, observer once',
    cpu('APPLY releases/status (controller: applied)') +
      cpu('APPLY releases/status (controller: succeeded)') +
      cpu('APPLY releases/status (observer)'),
  ],
  [
    'the rest: finalizer, render Secret, Event',
    cpu('APPLY releases (finalizer)') + cpu('POST secrets (render store)') + cpu('POST events'),
  ],
];
const floor = OBJECTS * cpu('APPLY configmaps (create)');
console.log(
  `one Release of ${OBJECTS} ConfigMaps as convoy rolls it out (the floor, kubectl's applies: ${floor.toFixed(1)} ms CPU)`,
);
for (const [what, ms] of parts) console.log(`  ${what.padEnd(44)} ${ms.toFixed(1).padStart(6)} ms CPU`);
const total = parts.reduce((s, [, ms]) => s + ms, 0);
console.log(
  `  ${'in all'.padEnd(44)} ${total.toFixed(1).padStart(6)} ms CPU, ${(total / floor).toFixed(2)}× the floor's`,
);
process.exit(0);
