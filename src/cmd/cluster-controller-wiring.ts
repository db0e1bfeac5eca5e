// Wiring of the cluster controller into the controller-manager: one ClusterClients for the process
// (shared with the release controller's resolveTarget, so a remote client and its discovery cache are
// built once), the shared Cluster informer, and the controller on the harness. Call before harness.start().
import type { KubeConfig } from '@kubernetes/client-node';
import {
  type CachedCluster,
  ClusterClients,
  clusterInformer,
  type ProbeResult,
  registerClusterController,
} from '../controller/cluster/index.ts';
import type { KubeClient } from '../kube/client.ts';
import type { Controller, Harness, Informer } from '../runtime/index.ts';

export type ClusterControllerDeps = {
  /** The cluster convoy runs in (the harness's). */
  readonly kubeConfig: KubeConfig;
  /** Default 30 s. */
  readonly probeIntervalMs?: number;
  /** Default 10 s. */
  readonly probeTimeoutMs?: number;
  readonly workers?: number;
  readonly makeClient?: (kc: KubeConfig) => KubeClient;
  /** Called after every probe whose status write (or skip) succeeded (metrics, tests). */
  readonly onProbe?: (key: string, result: ProbeResult) => void;
};

export type ClusterWiring = {
  readonly controller: Controller<CachedCluster>;
  readonly clients: ClusterClients;
  /** The shared Cluster informer: watch it (with clusterChangeWakesReleases) to wake Releases. */
  readonly clusters: Informer<CachedCluster>;
};

export function startClusterController(harness: Harness, deps: ClusterControllerDeps): ClusterWiring {
  const clients = new ClusterClients({
    kubeConfig: deps.kubeConfig,
    ...(deps.makeClient === undefined ? {} : { makeClient: deps.makeClient }),
  });
  const clusters = clusterInformer(harness);
  const controller = registerClusterController(harness, {
    clients,
    ...(deps.probeIntervalMs === undefined ? {} : { probeIntervalMs: deps.probeIntervalMs }),
    ...(deps.probeTimeoutMs === undefined ? {} : { probeTimeoutMs: deps.probeTimeoutMs }),
    ...(deps.workers === undefined ? {} : { workers: deps.workers }),
    ...(deps.onProbe === undefined ? {} : { onProbe: deps.onProbe }),
  });
  return {
    controller,
    clients,
    clusters,
  };
}
