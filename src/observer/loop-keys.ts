// When a Cluster wakes the observer's per-Release loops (health, drift): both must agree, so the rule
// lives once here. Which shard a Release belongs to is src/api/shard.ts, shared with the controller.
import type { Cluster } from '../api/types.ts';

const readyOf = (c: Cluster) => {
  const r = c.status?.conditions?.find((x) => x.type === 'Ready');
  return r === undefined ? '' : `${r.status}/${r.reason}`;
};

/** Cluster: its Ready condition changed, so what can be read of its Releases' objects changed. */
export function clusterUpdateMatters(o: Cluster, n: Cluster): boolean {
  return readyOf(o) !== readyOf(n);
}
