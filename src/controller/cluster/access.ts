// How convoy reaches a cluster: the local one (optionally impersonating a service account) or a
// remote one through the kubeconfig in a Secret. Clients are cached — a KubeClient keeps its
// discovery answers — per Cluster, and a remote client is rebuilt when the Cluster's uid, the
// Secret's resourceVersion or the key changes, so a rotated kubeconfig takes effect on next use.
import { KubeConfig } from '@kubernetes/client-node';
import type { Cluster, ClusterSpec } from '../../api/types.ts';
import { KubeClient } from '../../kube/client.ts';
import { nameOf, namespaceOf } from '../../lib/names.ts';
import { loadKubeconfig } from './kubeconfig.ts';

/** The parts of a core/v1 Secret read here. */
export type SecretLike = {
  readonly metadata: { readonly name?: string; readonly resourceVersion?: string };
  readonly data?: Readonly<Record<string, string>>;
};

/** Reads a Secret of the cluster convoy runs in, as convoy itself; undefined when it does not exist. */
export type SecretReader = (namespace: string, name: string) => Promise<SecretLike | undefined>;

export function secretReader(client: KubeClient): SecretReader {
  return (namespace, name) => client.get<SecretLike>({ apiVersion: 'v1', kind: 'Secret', namespace, name });
}

export type SecretKeyRef = NonNullable<ClusterSpec['kubeconfigSecretRef']>;

export const DEFAULT_KUBECONFIG_KEY = 'kubeconfig';

/** The Kubernetes user name of a service account, as impersonation and RBAC spell it. */
export function serviceAccountUser(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/**
 * A copy of `kc` reduced to its current context whose user impersonates `user`: client-node then sends
 * `Impersonate-User` on every request (typed APIs, KubeClient and watches alike).
 */
export function impersonating(kc: KubeConfig, user: string): KubeConfig {
  const cluster = kc.getCurrentCluster();
  const current = kc.getCurrentUser();
  const context = kc.getContextObject(kc.getCurrentContext());
  if (cluster === null || current === null || context === null) {
    throw new Error('kubeconfig has no complete current context to impersonate from');
  }
  const out = new KubeConfig();
  out.loadFromOptions({
    clusters: [cluster],
    users: [{ ...current, impersonateUser: user }],
    contexts: [context],
    currentContext: context.name,
  });
  return out;
}

export type RemoteAccess =
  | { readonly kind: 'ok'; readonly kubeConfig: KubeConfig; readonly client: KubeClient }
  | { readonly kind: 'secretNotFound'; readonly message: string }
  | { readonly kind: 'invalidKubeconfig'; readonly message: string };

type CachedRemote = {
  readonly uid: string;
  readonly secretName: string;
  readonly secretKey: string;
  readonly resourceVersion: string;
  readonly access: RemoteAccess & { kind: 'ok' };
};

/** The kubeconfig text at `ref` of a Secret; a pure step of remoteAccess. */
export function kubeconfigText(
  secret: SecretLike | undefined,
  namespace: string,
  ref: SecretKeyRef,
): { kind: 'ok'; text: string } | { kind: 'secretNotFound' | 'invalidKubeconfig'; message: string } {
  const key = ref.key ?? DEFAULT_KUBECONFIG_KEY;
  if (secret === undefined) {
    return { kind: 'secretNotFound', message: `kubeconfig Secret ${namespace}/${ref.name} not found` };
  }
  const data = secret.data?.[key];
  if (data === undefined || data === '') {
    return {
      kind: 'secretNotFound',
      message: `kubeconfig Secret ${namespace}/${ref.name} has no key "${key}"`,
    };
  }
  return { kind: 'ok', text: Buffer.from(data, 'base64').toString('utf8') };
}

export type ClusterClientsOptions = {
  /** The cluster convoy runs in. */
  readonly kubeConfig: KubeConfig;
  /** Default: GET through the local client. */
  readonly readSecret?: SecretReader;
  /** Makes the client of a kubeconfig (a bench passes one that counts requests). */
  readonly makeClient?: (kc: KubeConfig) => KubeClient;
};

/** Clients for every target, shared by the cluster controller and the release controller. */
export class ClusterClients {
  /** The cluster convoy runs in, as convoy itself. */
  readonly local: KubeClient;
  readonly #readSecret: SecretReader;
  readonly #make: (kc: KubeConfig) => KubeClient;
  readonly #impersonated = new Map<string, KubeClient>();
  readonly #remote = new Map<string, CachedRemote>();

  constructor(opts: ClusterClientsOptions) {
    this.#make = opts.makeClient ?? ((kc) => new KubeClient(kc));
    this.local = this.#make(opts.kubeConfig);
    this.#readSecret = opts.readSecret ?? secretReader(this.local);
  }

  /** The local cluster as `user` (e.g. serviceAccountUser(ns, sa)). */
  localAs(user: string): KubeClient {
    let c = this.#impersonated.get(user);
    if (c === undefined) {
      c = this.#make(impersonating(this.local.kubeConfig, user));
      this.#impersonated.set(user, c);
    }
    return c;
  }

  /**
   * The client of a Cluster with a kubeconfigSecretRef. Reads the Secret on every call (one GET: the
   * only way to notice a rotation without watching every Secret) and rebuilds only when it changed.
   * Errors reading the Secret (other than not found) are thrown.
   */
  async remote(cluster: Cluster, ref: SecretKeyRef): Promise<RemoteAccess> {
    const namespace = namespaceOf(cluster);
    const cacheKey = `${namespace}/${nameOf(cluster)}`;
    const secret = await this.#readSecret(namespace, ref.name);
    const text = kubeconfigText(secret, namespace, ref);
    if (text.kind !== 'ok') {
      this.#remote.delete(cacheKey);
      return text;
    }
    const uid = cluster.metadata.uid ?? '';
    const secretKey = ref.key ?? DEFAULT_KUBECONFIG_KEY;
    const resourceVersion = secret?.metadata.resourceVersion ?? '';
    const hit = this.#remote.get(cacheKey);
    if (
      hit !== undefined &&
      hit.uid === uid &&
      hit.secretName === ref.name &&
      hit.secretKey === secretKey &&
      hit.resourceVersion === resourceVersion &&
      resourceVersion !== ''
    ) {
      return hit.access;
    }
    const loaded = loadKubeconfig(text.text);
    if (loaded.kind === 'invalid') {
      this.#remote.delete(cacheKey);
      return {
        kind: 'invalidKubeconfig',
        message: `kubeconfig in Secret ${namespace}/${ref.name} key "${secretKey}": ${loaded.message}`,
      };
    }
    const access = {
      kind: 'ok',
      kubeConfig: loaded.kubeConfig,
      client: this.#make(loaded.kubeConfig),
    } as const;
    this.#remote.set(cacheKey, { uid, secretName: ref.name, secretKey, resourceVersion, access });
    return access;
  }

  /** Drops the cached client of a deleted Cluster (`namespace/name`). */
  forget(clusterKey: string): void {
    this.#remote.delete(clusterKey);
  }
}
