// A bare control plane for e2e tests that run convoy's parts themselves: convoy's CRDs installed, some
// namespaces made, and optionally a scratch directory; stop() undoes all of it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '../../src/kube/client.ts';
import { type ControlPlane, type StartOptions, startControlPlane } from '../../src/testenv/index.ts';
import { installCrds } from './crds.ts';
import { startedPerFile } from './per-file.ts';

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

/** A CrdCluster started before the file's tests and stopped after them: the set-up most e2e files share. */
export function useCrdCluster(opts: CrdClusterOptions = {}): CrdCluster {
  return startedPerFile(
    'the CRD cluster',
    () => startCrdCluster(opts),
    (c) => c.stop(),
  );
}
