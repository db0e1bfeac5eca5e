// Where a Release's objects go, and as whom (docs/design.md#tenancy-and-impersonation). No spec.cluster: the
// cluster convoy runs in. spec.cluster.name: the Cluster of that name in the Release's OWN namespace — there
// is no namespace field, so a tenant can never borrow another namespace's cluster credentials. Writes to the
// local cluster impersonate spec.serviceAccountName (the local RBAC of that account is the tenant's
// boundary); writes to a remote cluster use the Cluster's kubeconfig as is (its credentials are the boundary
// there: the account does not exist on that cluster). In tenant mode (the default) a local write is never
// convoy's own: a Release naming no account impersonates --default-service-account, or is refused.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Cluster, Release } from '../../../api/types.ts';
import type { KubeClient } from '../../../kube/client.ts';
import { assertNever } from '../../../lib/assert-never.ts';
import { nameOf, namespaceOf } from '../../../lib/names.ts';
import { type ClusterClients, readyOf, type SecretKeyRef, serviceAccountUser } from '../../cluster/index.ts';
import { ClusterUnavailableError, ReleaseError, ServiceAccountRequiredError } from '../errors.ts';

/**
 * As whom a Release without spec.serviceAccountName writes to the local cluster
 * (docs/design.md#tenancy-and-impersonation): tenant mode impersonates the default ServiceAccount of the
 * Release's namespace, or refuses the Release when there is none; cluster mode writes as convoy itself.
 */
export type Tenancy =
  | { readonly mode: 'tenant'; readonly defaultServiceAccount?: string }
  | { readonly mode: 'cluster' };

export interface Target {
  /** "local", or the name of the Cluster. */
  readonly name: string;
  /** The kubeconfig of `client` (impersonating when `client` does). */
  readonly kubeConfig: KubeConfig;
  /** For writes to the target: on the local cluster, impersonates spec.serviceAccountName when set. */
  readonly client: KubeClient;
  /** Never impersonated: reads and discovery. */
  readonly readClient: KubeClient;
}

/**
 * The Release's Cluster has spec.paused. A hold, not a failure: it carries the ClusterPaused Ready reason
 * (Ready=False, not stalled) and resolves when the Cluster is unpaused, which wakes the Release
 * (clusterChangeWakesReleases).
 */
export class ClusterPausedError extends ReleaseError {
  override name = 'ClusterPausedError';
  readonly reason = 'ClusterPaused';
}

export type ClusterReader = { get(key: string): Cluster | undefined };

export type TargetDeps = {
  readonly clients: ClusterClients;
  /** The Cluster cache (keys `namespace/name`). */
  readonly clusters: ClusterReader;
  readonly tenancy: Tenancy;
};

export type TargetDecision =
  | { readonly kind: 'local'; readonly name: string; readonly impersonate: string | undefined }
  | {
      readonly kind: 'remote';
      readonly name: string;
      readonly cluster: Cluster;
      readonly secretRef: SecretKeyRef;
    }
  | { readonly kind: 'paused'; readonly message: string }
  /** Tenant mode, no spec.serviceAccountName and no default: nothing is written. */
  | { readonly kind: 'refused'; readonly message: string }
  | {
      readonly kind: 'unavailable';
      readonly reason: 'ClusterNotFound' | 'ClusterNotReady';
      readonly message: string;
    };

/** The local write identity: the ServiceAccount user to impersonate, convoy itself, or a refusal. */
function localWriter(
  release: Release,
  tenancy: Tenancy,
): { readonly impersonate: string | undefined } | { readonly refused: string } {
  const ns = namespaceOf(release);
  const named = release.spec.serviceAccountName;
  if (named !== undefined && named !== '') return { impersonate: serviceAccountUser(ns, named) };
  if (tenancy.mode === 'cluster') return { impersonate: undefined };
  const fallback = tenancy.defaultServiceAccount;
  if (fallback !== undefined && fallback !== '') return { impersonate: serviceAccountUser(ns, fallback) };
  return {
    refused:
      `Release ${ns}/${nameOf(release)} has no spec.serviceAccountName, and convoy runs in tenant mode ` +
      'without --default-service-account: set spec.serviceAccountName to a ServiceAccount of namespace ' +
      `"${ns}" allowed to write the render (or target a Cluster with a kubeconfig); nothing was applied`,
  };
}

/** Pure: which target a Release gets, given the Cluster its spec names (looked up in its namespace). */
export function decideTarget(
  release: Release,
  cluster: Cluster | undefined,
  tenancy: Tenancy,
): TargetDecision {
  const ns = namespaceOf(release);
  const writer = localWriter(release, tenancy);
  const local = (name: string): TargetDecision =>
    'refused' in writer ? { kind: 'refused', message: writer.refused } : { kind: 'local', name, ...writer };
  const name = release.spec.cluster?.name;
  if (name === undefined) return local('local');
  if (cluster === undefined) {
    return {
      kind: 'unavailable',
      reason: 'ClusterNotFound',
      message: `Cluster "${name}" not found in namespace "${ns}" (a Release can only target a Cluster of its own namespace)`,
    };
  }
  if (cluster.spec.paused === true) {
    return { kind: 'paused', message: `Cluster "${name}" is paused (spec.paused): nothing is synced to it` };
  }
  const ready = readyOf(cluster);
  // A condition written for an older generation describes a spec that is gone (e.g. a fixed Secret
  // reference): try the new spec rather than wait for the next probe. Not yet probed: try as well.
  const current =
    ready?.observedGeneration === undefined || ready.observedGeneration === cluster.metadata.generation;
  if (ready?.status === 'False' && current) {
    return {
      kind: 'unavailable',
      reason: 'ClusterNotReady',
      message: `Cluster "${name}" is not Ready (${ready.reason}): ${ready.message}`,
    };
  }
  const ref = cluster.spec.kubeconfigSecretRef;
  return ref === undefined ? local(name) : { kind: 'remote', name, cluster, secretRef: ref };
}

/**
 * The Release's target with its clients. Throws ClusterUnavailableError (ClusterNotFound /
 * ClusterNotReady, retried with backoff) or ClusterPausedError.
 */
export async function resolveTarget(release: Release, deps: TargetDeps): Promise<Target> {
  const ns = namespaceOf(release);
  const clusterName = release.spec.cluster?.name;
  const cluster = clusterName === undefined ? undefined : deps.clusters.get(`${ns}/${clusterName}`);
  const decision = decideTarget(release, cluster, deps.tenancy);
  const { clients } = deps;
  switch (decision.kind) {
    case 'local': {
      const readClient = clients.local;
      const client = decision.impersonate === undefined ? readClient : clients.localAs(decision.impersonate);
      return { name: decision.name, kubeConfig: client.kubeConfig, client, readClient };
    }
    case 'remote': {
      let access: Awaited<ReturnType<ClusterClients['remote']>>;
      try {
        access = await clients.remote(decision.cluster, decision.secretRef);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        throw new ClusterUnavailableError(
          'ClusterNotReady',
          `Cluster "${decision.name}": cannot read its kubeconfig Secret: ${why}`,
          { cause: err },
        );
      }
      if (access.kind !== 'ok') {
        throw new ClusterUnavailableError('ClusterNotReady', `Cluster "${decision.name}": ${access.message}`);
      }
      return {
        name: decision.name,
        kubeConfig: access.kubeConfig,
        client: access.client,
        readClient: access.client,
      };
    }
    case 'paused':
      throw new ClusterPausedError(decision.message);
    case 'refused':
      throw new ServiceAccountRequiredError(decision.message);
    case 'unavailable':
      throw new ClusterUnavailableError(decision.reason, decision.message);
    default:
      return assertNever(decision);
  }
}
