// The cluster controller and what other components need from it: clients for every target, the
// shared Cluster informer, and the wake-up rule for Releases that target a Cluster.
export {
  ClusterClients,
  DEFAULT_KUBECONFIG_KEY,
  impersonating,
  type RemoteAccess,
  type SecretKeyRef,
  type SecretLike,
  type SecretReader,
  secretReader,
  serviceAccountUser,
} from './access.ts';
export {
  type CachedCluster,
  CLUSTER_CONTROLLER,
  type ClusterControllerOptions,
  clusterInformer,
  DEFAULT_PROBE_INTERVAL_MS,
  DEFAULT_PROBE_TIMEOUT_MS,
  registerClusterController,
} from './controller.ts';
export { type KubeconfigResult, loadKubeconfig } from './kubeconfig.ts';
export { describeProbeError, probeCluster } from './probe.ts';
export { clusterStatus, type ProbeResult, readyCondition, readyOf } from './status.ts';
export { clusterChangeWakesReleases, RELEASES_BY_CLUSTER, releaseClusterKeys } from './wake.ts';
