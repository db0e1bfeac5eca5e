// Which keys the observer's per-Release loops (health, drift) work and when a Cluster wakes them: both
// must agree with each other and with the controller-manager, so the rules live once here.
import type { Cluster, Release } from '../api/types.ts';
import { namespaceOf } from '../lib/names.ts';
import { shardOf } from '../runtime/index.ts';

/**
 * The shard of a Release: its Cluster's (spec.shard when set), or its namespace's without one
 * (docs/design.md#sharding).
 */
export function shardOfRelease(release: Release, cluster: Cluster | undefined, count: number): number {
  const ns = namespaceOf(release);
  const name = release.spec?.cluster?.name;
  if (name === undefined) return shardOf({ kind: 'namespace', namespace: ns }, count);
  const shard = cluster?.spec?.shard;
  return shardOf({ kind: 'cluster', namespace: ns, name, ...(shard !== undefined ? { shard } : {}) }, count);
}

const readyOf = (c: Cluster) => {
  const r = c.status?.conditions?.find((x) => x.type === 'Ready');
  return r === undefined ? '' : `${r.status}/${r.reason}`;
};

/** Cluster: its Ready condition changed, so what can be read of its Releases' objects changed. */
export function clusterUpdateMatters(o: Cluster, n: Cluster): boolean {
  return readyOf(o) !== readyOf(n);
}
