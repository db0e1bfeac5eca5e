// A minimal, read-only resolver of a Release's target cluster for the observer: no spec.cluster is the
// cluster the observer runs in; a Cluster with kubeconfigSecretRef is reached through the kubeconfig in
// its Secret. (src/controller/release/target.ts resolveTarget is the controller's; switch to it once it
// exists.) Clients are cached per Cluster and Secret resourceVersion, so a rotated kubeconfig is picked up.
import { KubeConfig } from '@kubernetes/client-node';
import type { Cluster, Release } from '../../../api/types.ts';
import { KubeClient } from '../../../kube/client.ts';
import { errorMessage } from '../../../lib/errors.ts';
import { namespaceOf } from '../../../lib/names.ts';

export class TargetError extends Error {
  override readonly name = 'TargetError';
}

export type Target =
  | { readonly kind: 'local'; readonly client: KubeClient }
  | { readonly kind: 'remote'; readonly cluster: string; readonly client: KubeClient };

interface SecretLike {
  metadata: { resourceVersion?: string };
  data?: Record<string, string>;
}

export class TargetResolver {
  readonly #local: KubeClient;
  readonly #clients = new Map<string, { version: string; client: KubeClient }>();

  constructor(local: KubeClient) {
    this.#local = local;
  }

  /** `cluster` is the Cluster named by the Release, as cached (undefined: not found). */
  async resolve(release: Release, cluster: Cluster | undefined): Promise<Target> {
    const name = release.spec.cluster?.name;
    if (name === undefined) return { kind: 'local', client: this.#local };
    const ns = namespaceOf(release);
    if (cluster === undefined) throw new TargetError(`cluster ${ns}/${name} not found`);
    const ready = cluster.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready?.status === 'False') {
      throw new TargetError(`cluster ${ns}/${name} is not ready: ${ready.reason}: ${ready.message}`);
    }
    const ref = cluster.spec.kubeconfigSecretRef;
    if (ref === undefined) return { kind: 'local', client: this.#local };
    const secret = await this.#local.get<SecretLike>({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: ns,
      name: ref.name,
    });
    if (secret === undefined) throw new TargetError(`cluster ${ns}/${name}: secret ${ref.name} not found`);
    const key = ref.key ?? 'kubeconfig';
    const id = `${ns}/${name}`;
    const version = `${ref.name}/${key}@${secret.metadata.resourceVersion ?? ''}`;
    const cached = this.#clients.get(id);
    if (cached?.version === version) return { kind: 'remote', cluster: id, client: cached.client };
    const data = secret.data?.[key];
    if (data === undefined) throw new TargetError(`cluster ${id}: secret ${ref.name} has no key ${key}`);
    const kc = new KubeConfig();
    try {
      kc.loadFromString(Buffer.from(data, 'base64').toString('utf8'));
    } catch (err) {
      throw new TargetError(`cluster ${id}: invalid kubeconfig: ${errorMessage(err)}`);
    }
    const client = new KubeClient(kc);
    this.#clients.set(id, { version, client });
    return { kind: 'remote', cluster: id, client };
  }
}
