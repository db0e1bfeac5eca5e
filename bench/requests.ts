// npm run bench:requests — kube-apiserver's CPU per request, for each kind of request convoy sends while
// it rolls out one Release of 10 ConfigMaps, on one local control plane without convoy running: each kind
// is sent REQUESTS times (8 at once) to REQUESTS Releases, and the apiserver's CPU seconds (/proc) over the
// batch are divided by its count. The bodies have the shapes and sizes convoy writes for such a Release
// (traced from both processes: keys, renderRefs, messages, conditions); the Release write order is
// convoy's, so each write meets the managedFields the earlier ones left. It prints the table and what one
// Release costs with the request mix `npm run bench:floor` counts (docs/development.md, docs/design.md#observer-status):
// what the floor's one apply per object costs against convoy's records of it. Env:
// CONVOY_BENCH_REQUESTS (default 400).
import { API_VERSION } from '../src/api/constants.ts';
import { KubeClient } from '../src/kube/client.ts';
import { startControlPlane } from '../src/testenv/index.ts';
import { installCrds } from '../test/support/crds.ts';
import { proc } from './procs.ts';
import { benchRelease } from './release-burst.ts';
import { releaseRequests } from './release-requests.ts';

const N = Number(process.env.CONVOY_BENCH_REQUESTS ?? 400);
const OBJECTS = 10;
const PARALLEL = 8;
const NS = 'bench-requests';

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

const meta = (i: number) => ({ name: `r${i}`, namespace: NS });
/** Release i's requests (its ConfigMap 0 stands for each of its objects). */
const req = (i: number) =>
  releaseRequests(client, { namespace: NS, name: `r${i}`, index: i, objects: OBJECTS });

try {
  await installCrds(cp.kubeConfig);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await batch('POST releases (the user)', (i) =>
    client.create(benchRelease(i, `r${i}`, NS, OBJECTS, undefined)),
  );
  await batch('APPLY releases (finalizer)', (i) => req(i).finalizer());
  await batch('POST secrets (render store)', (i) => req(i).renderSecret());
  await batch('APPLY releaseinventories (note pending)', (i) => req(i).notePending());
  await batch('APPLY configmaps (dry run, new)', (i) => req(i).dryRun(0));
  await batch('APPLY configmaps (create)', (i) => req(i).applyObject(0));
  await batch('APPLY releaseinventories (record)', (i) => req(i).record());
  await batch('APPLY releases/status (controller: applied)', (i) => req(i).statusApplied());
  await batch('POST events', (i) => req(i).event());
  await batch('APPLY releaseinventories (health)', (i) => req(i).health());
  await batch('APPLY releases/status (observer)', (i) => req(i).statusHealthy());
  await batch('APPLY releases/status (controller: succeeded)', (i) => req(i).statusSucceeded());
  await batch('APPLY configmaps (dry run, unchanged)', (i) => req(i).dryRun(0));
  await batch('APPLY configmaps (unchanged)', (i) => req(i).applyObject(0));
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
