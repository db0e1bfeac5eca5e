// The controller-manager as the backend of the aggregated API, as docs/ui.md#in-a-cluster sets it up:
// serving with --api-dev-self-signed on a cluster started with `aggregation: true`, and registered as
// the APIService once it is up. The UI, the docs and the sync-API e2e files start it the same way.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { registerApiService } from '../../src/testenv/index.ts';
import type { CrdCluster } from './cluster.ts';
import { type ManagerApi, type ManagerProcess, startControllerManager } from './processes.ts';

export type AggregatedManager = ManagerProcess & { readonly api: ManagerApi };

/** Started with cluster tenancy and a git cache in the cluster's scratch directory, plus `args`. */
export async function startAggregatedManager(
  cluster: CrdCluster,
  identity: string,
  args: readonly string[] = [],
): Promise<AggregatedManager> {
  const manager = await startControllerManager({
    kubeconfigPath: cluster.cp.kubeconfigPath,
    identity,
    tenancy: { mode: 'cluster' },
    gitCacheDir: join(cluster.work, 'git-cache'),
    api: { kind: 'serve', tls: 'dev-self-signed' },
    args,
  });
  try {
    const { api } = manager;
    assert.ok(api, 'the controller-manager serves its API');
    await registerApiService(cluster.cp.kubeConfig, { port: api.port, caPem: api.caPem });
    return Object.assign(manager, { api });
  } catch (err) {
    await manager.stop();
    throw err;
  }
}
