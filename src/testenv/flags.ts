// Command lines of the control plane's processes, as pure functions of where things live.
// Kept apart from the process handling so the flags (and the pitfalls they encode, see
// shared/notes/local-control-plane.md) are table-tested without starting anything.

export interface EtcdLayout {
  readonly dataDir: string;
  readonly clientPort: number;
  readonly peerPort: number;
}

export interface ApiServerLayout {
  readonly etcdEndpoint: string;
  readonly etcdPrefix: string;
  readonly port: number;
  readonly certDir: string;
  readonly tokenFile: string;
  readonly serviceAccountKeyFile: string;
  /** Turns on the front proxy of the aggregation layer (`aggregation: true`). */
  readonly frontProxy?: FrontProxyFiles;
  /** Serves /debug/pprof (`profiling: true`): benches profile where the apiserver's CPU goes. */
  readonly profiling?: boolean;
}

/** PEM files of the front-proxy (requestheader) CA and the client cert kube-apiserver proxies with. */
export interface FrontProxyFiles {
  readonly caFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
}

/** The CN of the proxy's client cert; kube-apiserver publishes it as the only allowed name. */
export const FRONT_PROXY_CLIENT_NAME = 'front-proxy-client';

export interface ComponentLayout {
  readonly kubeconfig: string;
}

export interface KwokLayout extends ComponentLayout {
  readonly stagesFile: string;
  /**
   * The kubelet API kwok serves (Pod logs, from the ClusterLogs of the config) on 127.0.0.1: its port,
   * which the nodes advertise, and the serving cert (kube-apiserver's own; with no
   * --kubelet-certificate-authority it does not verify a kubelet's).
   */
  readonly kubelet: { readonly port: number; readonly certFile: string; readonly keyFile: string };
}

/**
 * Controllers the workload tests and `convoy dev` need; node-lifecycle lifts the not-ready taint new
 * Nodes get; the persistentvolume ones provision (hostPath, --enable-hostpath-provisioner) and bind
 * claims of the default StorageClass, and let a bound claim be deleted (its protection finalizer).
 */
export const CONTROLLERS = [
  'deployment-controller',
  'replicaset-controller',
  'statefulset-controller',
  'daemonset-controller',
  'job-controller',
  'garbage-collector-controller',
  'namespace-controller',
  'serviceaccount-controller',
  'node-lifecycle-controller',
  'ttl-after-finished-controller',
  'pod-garbage-collector-controller',
  'persistentvolume-binder-controller',
  'persistentvolume-protection-controller',
  'persistentvolumeclaim-protection-controller',
] as const;

export const etcdArgs = (l: EtcdLayout): string[] => {
  const client = `http://127.0.0.1:${l.clientPort}`;
  const peer = `http://127.0.0.1:${l.peerPort}`;
  return [
    '--name=default',
    `--data-dir=${l.dataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    '--initial-cluster-state=new',
    // A single member has no peer to disagree with; short timers make its first election
    // (and so its start) take ~0.1 s instead of ~1 s.
    '--heartbeat-interval=10',
    '--election-timeout=100',
    // Test data is thrown away; fsync only costs time on a shared disk.
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
};

export const apiServerArgs = (l: ApiServerLayout): string[] => [
  `--etcd-servers=${l.etcdEndpoint}`,
  `--etcd-prefix=${l.etcdPrefix}`,
  '--bind-address=127.0.0.1',
  // No default route here: without an explicit address the apiserver refuses to start.
  '--advertise-address=127.0.0.1',
  // The endpoints reconciler rejects loopback addresses for the kubernetes Service.
  '--endpoint-reconciler-type=none',
  `--secure-port=${l.port}`,
  // Without --tls-* flags it writes a self-signed serving cert (SAN 127.0.0.1) here.
  `--cert-dir=${l.certDir}`,
  `--token-auth-file=${l.tokenFile}`,
  '--authorization-mode=RBAC',
  `--service-account-key-file=${l.serviceAccountKeyFile}`,
  `--service-account-signing-key-file=${l.serviceAccountKeyFile}`,
  '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
  '--service-cluster-ip-range=10.96.0.0/16',
  '--allow-privileged=true',
  // kwok's nodes are reached at their InternalIP (127.0.0.1): their Hostname resolves nowhere.
  '--kubelet-preferred-address-types=InternalIP',
  `--profiling=${l.profiling === true}`,
  ...(l.frontProxy ? frontProxyArgs(l.frontProxy) : []),
];

/**
 * What an aggregated apiserver needs from kube-apiserver: a client cert to proxy with and the
 * requestheader settings it publishes in kube-system/extension-apiserver-authentication.
 * --enable-aggregator-routing stays off: the aggregator reaches an ExternalName Service by its
 * externalName, so no endpoints (and no kube-proxy) are needed on loopback.
 */
export const frontProxyArgs = (f: FrontProxyFiles): string[] => [
  `--requestheader-client-ca-file=${f.caFile}`,
  `--requestheader-allowed-names=${FRONT_PROXY_CLIENT_NAME}`,
  '--requestheader-username-headers=X-Remote-User',
  '--requestheader-group-headers=X-Remote-Group',
  '--requestheader-extra-headers-prefix=X-Remote-Extra-',
  `--proxy-client-cert-file=${f.clientCertFile}`,
  `--proxy-client-key-file=${f.clientKeyFile}`,
];

const componentBase = (l: ComponentLayout): string[] => [
  `--kubeconfig=${l.kubeconfig}`,
  '--leader-elect=false',
  '--bind-address=127.0.0.1',
  // 0 = no HTTPS endpoint at all: nothing to collide with between parallel control planes.
  '--secure-port=0',
];

export const controllerManagerArgs = (l: ComponentLayout): string[] => [
  ...componentBase(l),
  `--controllers=${CONTROLLERS.join(',')}`,
  '--use-service-account-credentials=false',
  // The provisioner of the default StorageClass (DEFAULT_STORAGE_CLASS): an empty directory per claim
  // under /tmp/hostpath_pv, removed when the claim is deleted (reclaimPolicy Delete). Nothing reads it;
  // kwok's pods only need the claim Bound, as Bitnami charts' StatefulSets do.
  '--enable-hostpath-provisioner=true',
];

export const schedulerArgs = (l: ComponentLayout): string[] => componentBase(l);

export const kwokArgs = (l: KwokLayout): string[] => [
  `--kubeconfig=${l.kubeconfig}`,
  `--config=${l.stagesFile}`,
  '--manage-all-nodes=true',
  // The default /24 runs out after 254 pods.
  '--cidr=10.0.0.0/16',
  // kwok renews no node Lease unless told to; node-lifecycle then marks every node unhealthy once
  // --node-monitor-grace-period (50 s) passes, and sets every pod Ready=False about a minute in.
  '--node-lease-duration-seconds=40',
  `--server-address=127.0.0.1:${l.kubelet.port}`,
  '--node-ip=127.0.0.1',
  `--node-port=${l.kubelet.port}`,
  `--tls-cert-file=${l.kubelet.certFile}`,
  `--tls-private-key-file=${l.kubelet.keyFile}`,
];
