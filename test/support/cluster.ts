// A bare control plane for e2e tests that run convoy's parts themselves: convoy's CRDs installed, some
// namespaces made, and optionally a scratch directory; stop() undoes all of it. A controller-manager in
// cluster tenancy on it, for the files that run one.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '../../src/kube/client.ts';
import { type ControlPlane, type StartOptions, startControlPlane } from '../../src/testenv/index.ts';
import { installCrds } from './crds.ts';
import { readThrough, startedPerFile } from './per-file.ts';
import { type ManagerOptions, type ManagerProcess, startControllerManager } from './processes.ts';

export interface CrdCluster {
  readonly cp: ControlPlane;
  readonly client: KubeClient;
  /** The scratch directory ('' without `scratch`). */
  readonly work: string;
  /** Stops the control plane and removes the scratch directory; idempotent. */
  stop(): Promise<void>;
}

export interface CrdClusterOptions extends StartOptions {
  /** Namespaces to create once the CRDs are in. */
  readonly namespaces?: readonly string[];
  /** Prefix of a scratch directory under the OS temp dir. */
  readonly scratch?: string;
}

export async function startCrdCluster(opts: CrdClusterOptions = {}): Promise<CrdCluster> {
  const { namespaces = [], scratch, ...start } = opts;
  const cp = await startControlPlane(start);
  let work = '';
  const stop = async () => {
    await cp.stop();
    if (work) await rm(work, { recursive: true, force: true });
  };
  try {
    const client = new KubeClient(cp.kubeConfig);
    await installCrds(cp.kubeConfig);
    for (const name of namespaces)
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    if (scratch !== undefined) work = await mkdtemp(join(tmpdir(), scratch));
    return { cp, client, work, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** What a file starts on its CRD cluster: started once the cluster is in, stopped before it stops. */
export interface OnCluster {
  /** The file's own set-up (a file's top-level before hooks do not wait for each other). */
  readonly setUp?: (cluster: CrdCluster) => Promise<void>;
  /** Stops what setUp or the tests started; runs before the cluster stops, also when setUp failed. */
  readonly tearDown?: () => Promise<unknown>;
}

/**
 * A CrdCluster started before the file's (or a describe's) tests and stopped after them: the set-up most
 * e2e files share. Its cp and client read through to the started cluster, so they may be destructured
 * where the hooks are registered (`const { cp, client } = useCrdCluster(…)`), and are stand-ins, not
 * the objects (see readThrough); `work`, a string, is there once the cluster has started.
 */
export function useCrdCluster(opts: CrdClusterOptions = {}, on: OnCluster = {}): CrdCluster {
  const what = 'the CRD cluster';
  // Set as soon as the cluster is up, so that setUp may already use what this returns.
  let current: CrdCluster | undefined;
  const stop = async (c: CrdCluster) => {
    try {
      await on.tearDown?.();
    } finally {
      await c.stop();
    }
  };
  startedPerFile(
    what,
    async () => {
      current = await startCrdCluster(opts);
      try {
        await on.setUp?.(current);
      } catch (err) {
        await stop(current);
        throw err;
      }
      return current;
    },
    stop,
  );
  const started = readThrough(what, () => current);
  return {
    cp: readThrough(what, () => current?.cp),
    client: readThrough(what, () => current?.client),
    get work() {
      return started.work;
    },
    stop: () => started.stop(),
  };
}

/**
 * convoy-controller-manager on the cluster in cluster tenancy, its git cache under the scratch directory
 * (one per identity); `more` adds or overrides options.
 */
export function startClusterManager(
  cluster: CrdCluster,
  identity: string,
  more: Partial<ManagerOptions> = {},
): Promise<ManagerProcess> {
  return startControllerManager({
    tenancy: { mode: 'cluster' },
    kubeconfigPath: cluster.cp.kubeconfigPath,
    identity,
    gitCacheDir: join(cluster.work, `git-cache-${identity}`),
    ...more,
  });
}
