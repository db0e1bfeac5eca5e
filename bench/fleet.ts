// npm run bench:fleet — a ReleaseSet over BENCH_CLUSTERS (default 100) Cluster objects, all pointing at
// one extra kube-apiserver in namespaces of their own, in 4 waves, with convoy-controller-manager and
// convoy-observer as child processes. Prints: seconds from a new revision to every cluster Succeeded;
// seconds from the first failure (the failing Release's rollout finishedAt, a revision bad on one cluster
// of wave 2) to the whole fleet back on the last healthy revision (every cluster that took it pinned to
// its healthy render and that render applied, its ConfigMap back on the old version); the
// controller-manager's RSS (now and peak).
import { readFile } from 'node:fs/promises';
import { API_VERSION } from '../src/api/constants.ts';
import type { Release } from '../src/api/types.ts';
import {
  addFleetCluster,
  applyFleetRule,
  applyFleetSet,
  type FleetCluster,
  liveVersion,
  trainEnded,
  waitForSet,
} from '../test/support/fleet.ts';
import { startConvoySystem } from '../test/support/system.ts';
import { waitFor } from '../test/support/wait.ts';

const N = Number(process.env.BENCH_CLUSTERS ?? 100);
const NS = 'bench-fleet';
const TIMEOUT_MS = 20 * 60_000;

async function rss(pid: number | undefined): Promise<string> {
  if (pid === undefined) return '?';
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) =>
    Number(/(\d+) kB/.exec(status.split('\n').find((l) => l.startsWith(k)) ?? '')?.[1]);
  return `${(kb('VmRSS') / 1024).toFixed(0)} MiB (peak ${(kb('VmHWM') / 1024).toFixed(0)} MiB)`;
}

const sys = await startConvoySystem({ identity: 'bench-fleet', nodes: 1, extraClusters: 1 });
try {
  const access = sys.cp.extra[0];
  if (access === undefined) throw new Error('no extra cluster');
  await sys.namespace(NS);
  await applyFleetRule(sys.client, NS);
  const members: FleetCluster[] = Array.from({ length: N }, (_, i) => ({
    name: `c${String(i).padStart(3, '0')}`,
    access,
    targetNs: `t-${i}`,
    wave: 1 + Math.floor((i * 4) / N),
    bad: i === Math.floor(N / 4) + 1 ? 'v3' : 'none',
  }));
  for (const m of members) await addFleetCluster(sys.client, NS, m);
  const wait = (what: string, state: string) =>
    waitForSet(sys.client, NS, what, trainEnded(state), { timeoutMs: TIMEOUT_MS, context: sys.logs });

  // Each figure is printed as soon as it is measured: on a loaded machine the later ones take long.
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say(`bench:fleet — ReleaseSet over ${N} Clusters (one kube-apiserver, a namespace each, 4 waves)`);
  await applyFleetSet(sys.client, NS, 'v1');
  let t0 = Date.now();
  await wait('v1 everywhere', 'Succeeded');
  say(`  first revision → all Succeeded:            ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  await applyFleetSet(sys.client, NS, 'v2');
  t0 = Date.now();
  await wait('v2 everywhere', 'Succeeded');
  say(`  new revision → all Succeeded:              ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  say(`  controller-manager RSS after the trains:   ${await rss(sys.manager.proc.pid)}`);

  await applyFleetSet(sys.client, NS, 'v3');
  const stopped = await wait('fleet rollback of v3', 'RolledBack');
  const failed = stopped.status?.train?.failedCluster ?? '';
  const rolledBack = new Set(stopped.status?.train?.rolledBack ?? []);
  const release = (c: string) =>
    sys.client.get<Release>({ apiVersion: API_VERSION, kind: 'Release', namespace: NS, name: `web-${c}` });
  const failedAt = Date.parse((await release(failed))?.status?.rollout?.finishedAt ?? '');
  await waitFor(
    'every rolled back cluster on its healthy render',
    async () => {
      for (const m of members.filter((x) => rolledBack.has(x.name))) {
        const r = await release(m.name);
        const pin = r?.spec.pin?.renderRef;
        if (pin === undefined || r?.status?.lastSuccessful?.renderRef !== pin) return false;
        if ((await liveVersion(m)) !== 'v2') return false;
      }
      return true;
    },
    { timeoutMs: TIMEOUT_MS, intervalMs: 1000 },
  );
  const back = (Date.now() - failedAt) / 1000;
  say(
    `  first failure (${failed}) → fleet back on last healthy: ${back.toFixed(1)} s (${rolledBack.size} clusters rolled back)`,
  );
  say(`  controller-manager RSS after the rollback: ${await rss(sys.manager.proc.pid)}`);
} finally {
  await sys.stop();
}
