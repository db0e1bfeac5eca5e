// The controller-manager as the backend of the aggregated API, as docs/ui.md#in-a-cluster sets it up:
// serving with --api-dev-self-signed on a cluster started with `aggregation: true`, and registered as
// the APIService once it is up. The UI, the docs and the sync-API e2e files start it the same way.
import assert from 'node:assert/strict';
import { registerApiService } from '../../src/testenv/index.ts';
import { type CrdCluster, startClusterManager } from './cluster.ts';
import type { ManagerApi, ManagerProcess } from './processes.ts';

export type AggregatedManager = ManagerProcess & { readonly api: ManagerApi };

/** Started as startClusterManager starts it, serving its API, plus `args`. */
export async function startAggregatedManager(
  cluster: CrdCluster,
  identity: string,
  args: readonly string[] = [],
): Promise<AggregatedManager> {
  const manager = await startClusterManager(cluster, identity, {
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
