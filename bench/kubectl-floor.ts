// The floor a bench compares convoy with (bench/floor.ts, bench/scale.ts): the same ConfigMaps applied
// server-side by kubectl, several files at once, on the same control plane; and kube-apiserver's request
// counts (its /metrics), which both benches read around each phase.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeClient } from '../src/kube/client.ts';
import { binaryPath, ensureBinaries } from '../src/testenv/build.ts';
import { type ControlPlane, startControlPlane } from '../src/testenv/index.ts';
import { configMapManifests } from './fixtures.ts';
import { controlPlaneCpu, cpDelta, endedChildrenCpu } from './procs.ts';

/** kube-apiserver's requests so far by "VERB resource" (apiserver_request_total), refused ones by code apart. */
export async function apiserverRequests(admin: KubeClient): Promise<Record<string, number>> {
  const text = await admin.transport.requestText({ method: 'GET', path: '/metrics', accept: 'text/plain' });
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const label = (n: string) => new RegExp(`[{,]${n}="([^"]*)"`).exec(line)?.[1] ?? '';
    const sub = label('subresource');
    const dry = label('dry_run') === '' ? '' : ' (dry run)';
    // A refused request (409 conflict, 404, …) is counted apart, with its code: it is work the writer repeats.
    const code = label('code');
    const refused = code === '' || code.startsWith('2') ? '' : ` → ${code}`;
    const k = `${label('verb')} ${label('resource')}${sub ? `/${sub}` : ''}${dry}${refused}`;
    out[k] = (out[k] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return out;
}

/** Requests between two snapshots: by verb and resource (largest first), and in all. */
export function requestDelta(a: Record<string, number>, b: Record<string, number>) {
  const by = Object.entries(b)
    .map(([k, v]) => [k, v - (a[k] ?? 0)] as const)
    .filter(([, d]) => d > 0)
    .sort((p, q) => q[1] - p[1]);
  return { total: by.reduce((s, [, d]) => s + d, 0), byVerbAndResource: Object.fromEntries(by) };
}

/** kubectl processes at once in the scale benches' floor, one file each. */
export const KUBECTL_PARALLEL = 8;

/** Runs a command to its end (killed at `timeoutMs`); rejects with its stderr's tail. */
export function runCommand(cmd: string, args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    let err = '';
    child.stderr.on('data', (d) => {
      err += String(d);
    });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`${cmd} ${args.join(' ')}: ${code ?? signal}: ${err.slice(-2000)}`)),
    );
  });
}

export type FloorOptions = {
  readonly admin: KubeClient;
  readonly kubeconfigPath: string;
  /** Where the manifests files are written. */
  readonly workDir: string;
  readonly releases: number;
  readonly objects: number;
  /** Namespaces `<prefix>-0` … created first, Release r going to `<prefix>-<r % namespaces>`. */
  readonly namespaces: number;
  readonly prefix: string;
  /** kubectl processes at once, one file each. */
  readonly parallel: number;
  /** The control plane, when its CPU during the floor is wanted (bench:scale's lower bound). */
  readonly plane?: Pick<ControlPlane, 'processes'>;
};

/**
 * releases × objects ConfigMaps applied server-side by kubectl: the seconds it took, the requests, and
 * the CPU seconds kube-apiserver, etcd (with `plane`) and the kubectl processes used meanwhile.
 */
export async function kubectlFloor(o: FloorOptions) {
  for (let i = 0; i < o.namespaces; i++)
    await o.admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `${o.prefix}-${i}` } });
  const kubectl = binaryPath(await ensureBinaries(), 'kubectl');
  const files: string[] = [];
  for (let f = 0; f < o.parallel; f++) {
    const docs: string[] = [];
    for (let r = f; r < o.releases; r += o.parallel)
      docs.push(
        configMapManifests(r, o.objects).replaceAll(
          'metadata:\n',
          `metadata:\n  namespace: ${o.prefix}-${r % o.namespaces}\n`,
        ),
      );
    const file = join(o.workDir, `floor-${f}.yaml`);
    await writeFile(file, docs.join('---\n'));
    files.push(file);
  }
  const req0 = await apiserverRequests(o.admin);
  const cpu0 = { ...(o.plane ? await controlPlaneCpu(o.plane) : {}), kubectl: await endedChildrenCpu() };
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: o.parallel }, async () => {
      for (let i = next++; i < files.length; i = next++) {
        const args = [
          '--kubeconfig',
          o.kubeconfigPath,
          'apply',
          '--server-side',
          '--field-manager',
          'floor',
          '-f',
        ];
        await runCommand(kubectl, [...args, files[i] as string], 30 * 60_000);
      }
    }),
  );
  const seconds = +((performance.now() - t0) / 1000).toFixed(1);
  const cpu1 = { ...(o.plane ? await controlPlaneCpu(o.plane) : {}), kubectl: await endedChildrenCpu() };
  return {
    seconds,
    cpuSeconds: cpDelta(cpu0, cpu1),
    requests: requestDelta(req0, await apiserverRequests(o.admin)),
  };
}

/**
 * The kubectl floor on a control plane of its own, stopped after: its objects must not weigh on the
 * watch caches of the run it is compared with (bench/scale.ts, bench/replay.ts).
 */
export async function floorOnItsOwnPlane(
  o: Pick<FloorOptions, 'releases' | 'objects' | 'namespaces' | 'workDir'>,
) {
  const plane = await startControlPlane({});
  try {
    return await kubectlFloor({
      ...o,
      parallel: KUBECTL_PARALLEL,
      admin: new KubeClient(plane.kubeConfig),
      kubeconfigPath: plane.kubeconfigPath,
      prefix: 'floor',
      plane,
    });
  } finally {
    await plane.stop();
  }
}
