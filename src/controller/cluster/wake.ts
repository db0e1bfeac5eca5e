// Which Cluster changes must wake the Releases that target it (docs/design.md#health-events: "its Ready
// condition changed"), and the Release index that finds them. The release controller and the observer wire
// these into a secondary watch; a Release blocked on ClusterNotReady / ClusterPaused is otherwise retried
// only by its backoff.
import type { Cluster, Release } from '../../api/types.ts';
import { readyOf } from './status.ts';

/** Name of the Release cache index keyed by the `namespace/name` of the Cluster a Release targets. */
export const RELEASES_BY_CLUSTER = 'convoy.kumodo.io/cluster';

/** Index function for RELEASES_BY_CLUSTER: the Cluster key, or nothing for a Release on the local cluster. */
export function releaseClusterKeys(release: Release): readonly string[] {
  const name = release.spec?.cluster?.name;
  const ns = release.metadata.namespace;
  return name === undefined || ns === undefined ? [] : [`${ns}/${name}`];
}

/**
 * True when Releases targeting the Cluster must be reconciled: it appeared or went away, Ready's status
 * or reason changed, or it was (un)paused or re-pointed at another Secret (which decide the target
 * before any probe has run). A message-only change (a new error text while still Unreachable) is not
 * worth waking every Release for.
 */
export function clusterChangeWakesReleases(old: Cluster | undefined, next: Cluster | undefined): boolean {
  if (old === undefined || next === undefined) return old !== next;
  const a = readyOf(old);
  const b = readyOf(next);
  return (
    a?.status !== b?.status ||
    a?.reason !== b?.reason ||
    (old.spec.paused ?? false) !== (next.spec.paused ?? false) ||
    old.spec.kubeconfigSecretRef?.name !== next.spec.kubeconfigSecretRef?.name ||
    old.spec.kubeconfigSecretRef?.key !== next.spec.kubeconfigSecretRef?.key
  );
}
