// The cluster controller (controller-manager): for each Cluster of a shard this replica holds, probe
// it and apply status.conditions[Ready] and status.serverVersion as convoy-controller. It probes when
// the spec changes (generation) and then every probeInterval (jittered, so many Clusters created
// together do not probe in lockstep); writeStatus skips a status equal to the cached one, so a steady
// cluster costs one GET /version (and one Secret GET) per interval and no write.
import { isDeepStrictEqual } from 'node:util';
import { API_VERSION, FIELD_MANAGERS, PLURAL_CLUSTERS } from '../../api/constants.ts';
import { formatTime } from '../../api/time.ts';
import type { Cluster } from '../../api/types.ts';
import { writeStatus } from '../../kube/status.ts';
import {
  type Controller,
  deletionStarted,
  generationChanged,
  type Harness,
  type Informer,
  jittered,
  type KubeObject,
  type ReconcileResult,
  shardOf,
  splitKey,
} from '../../runtime/index.ts';
import type { ClusterClients } from './access.ts';
import { probeCluster } from './probe.ts';
import { clusterStatus, type ProbeResult } from './status.ts';

export const CLUSTER_CONTROLLER = 'cluster';

/**
 * A Cluster as the harness caches it. The intersection is needed because src/api's ObjectMeta is an
 * interface, which TypeScript will not match against the runtime's index-signature KubeObject.
 */
export type CachedCluster = Cluster & KubeObject;
export const DEFAULT_PROBE_INTERVAL_MS = 30_000;
export const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

export type ClusterControllerOptions = {
  readonly clients: ClusterClients;
  readonly probeIntervalMs?: number;
  readonly probeTimeoutMs?: number;
  readonly workers?: number;
  readonly now?: () => number;
  /** Called after every probe whose status write (or skip) succeeded (metrics, tests). */
  readonly onProbe?: (key: string, result: ProbeResult) => void;
};

/**
 * The shared informer of every Cluster. managedFields are kept: writeStatus compares them to know
 * whether convoy-controller already owns exactly the fields it would send. Every user of the Cluster
 * informer must get it here, since the harness shares one informer per path whatever options come later.
 */
export function clusterInformer(harness: Harness): Informer<CachedCluster> {
  return harness.informer<CachedCluster>({
    path: `/apis/${API_VERSION}/${PLURAL_CLUSTERS}`,
    stripManagedFields: false,
  });
}

export function registerClusterController(
  harness: Harness,
  opts: ClusterControllerOptions,
): Controller<CachedCluster> {
  const informer = clusterInformer(harness);
  const interval = opts.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS;
  const timeout = opts.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const now = opts.now ?? Date.now;

  const reconcile = async (key: string): Promise<ReconcileResult> => {
    const cluster = informer.cache.get(key);
    if (cluster === undefined) {
      opts.clients.forget(key);
      return { kind: 'done' };
    }
    if (cluster.metadata.deletionTimestamp !== undefined) return { kind: 'done' };
    const { namespace, name } = splitKey(key);
    try {
      // Throws only when convoy cannot read the kubeconfig Secret on its own cluster: a local fault,
      // retried with backoff rather than blamed on the target.
      const probe = await probeCluster(cluster, opts.clients, timeout);
      const status = clusterStatus(cluster, probe, formatTime(now()));
      // writeStatus needs managedFields to know it would change nothing; should another component have
      // created the shared informer with them stripped, an identical status still must not be re-sent.
      const unchanged =
        cluster.metadata.managedFields === undefined && isDeepStrictEqual(cluster.status, status);
      if (!unchanged) {
        await writeStatus(
          opts.clients.local,
          { kind: 'Cluster', name, ...(namespace === undefined ? {} : { namespace }) },
          status,
          { fieldManager: FIELD_MANAGERS.controller, cached: cluster },
        );
      }
      opts.onProbe?.(key, probe);
    } catch (error) {
      return { kind: 'error', error };
    }
    return { kind: 'requeueAfter', ms: jittered(interval, 0.1), priority: 'routine' };
  };

  return harness.controller<CachedCluster>({
    name: CLUSTER_CONTROLLER,
    primary: informer,
    reconcile,
    workers: opts.workers ?? 4,
    // Not on our own status writes: those would only trigger an immediate second probe.
    updateFilter: (o, n) => generationChanged(o, n) || deletionStarted(o, n),
    shardOfKey: (key) => {
      const c = informer.cache.get(key);
      const { namespace, name } = splitKey(key);
      if (c === undefined || namespace === undefined) return undefined;
      return shardOf({ kind: 'cluster', namespace, name, shard: c.spec.shard }, harness.shardCount);
    },
  });
}
