// Which shard a Release belongs to and which Cluster it targets (docs/design.md#sharding): the
// controller-manager and the observer must give the same answer, so the rule lives once here. The hash
// itself is src/runtime's shardOf, which knows nothing of Releases: this file says what to hash.
import { namespaceOf } from '../lib/names.ts';
import type { Cluster, Release } from './types.ts';

/** What decides a Release's shard; the shape of src/runtime's ShardSubject, which turns it into a number. */
export type ReleaseShardSubject =
  | { readonly kind: 'cluster'; readonly namespace: string; readonly name: string; readonly shard?: number }
  | { readonly kind: 'namespace'; readonly namespace: string };

/** The key (namespace/name) of the Cluster a Release targets; undefined: it names none. */
export function clusterKeyOfRelease(release: Release): string | undefined {
  const name = release.spec?.cluster?.name;
  return name === undefined ? undefined : `${namespaceOf(release)}/${name}`;
}

/** The Release → Cluster index of an informer: the key of its Cluster, or none. */
export function releaseClusterIndex(release: Release): string[] {
  const key = clusterKeyOfRelease(release);
  return key === undefined ? [] : [key];
}

/**
 * A Release shards by its Cluster (pinned by the Cluster's spec.shard when set; `cluster` is the one
 * it names, as cached, undefined when not cached yet), or by its namespace when it names no Cluster.
 */
export function releaseShardSubject(release: Release, cluster: Cluster | undefined): ReleaseShardSubject {
  const namespace = namespaceOf(release);
  const name = release.spec?.cluster?.name;
  if (name === undefined) return { kind: 'namespace', namespace };
  const shard = cluster?.spec?.shard;
  return { kind: 'cluster', namespace, name, ...(shard === undefined ? {} : { shard }) };
}
