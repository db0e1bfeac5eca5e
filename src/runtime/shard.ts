// Shard assignment: which shard a Cluster (or a Release without one) belongs to. Both
// processes must compute the same answer, so the hash is fixed: FNV-1a 32-bit over the UTF-8
// bytes of "namespace/name" (or of the namespace alone), modulo the shard count.

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

export function fnv1a32(s: string): number {
  let h = FNV_OFFSET;
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= b;
    h = Math.imul(h, FNV_PRIME) >>> 0;
  }
  return h >>> 0;
}

export type ShardSubject =
  | { readonly kind: 'cluster'; readonly namespace: string; readonly name: string; readonly shard?: number }
  | { readonly kind: 'namespace'; readonly namespace: string };

/** The shard of a Cluster (spec.shard wins when valid), or of a Release with no Cluster (its namespace). */
export function shardOf(subject: ShardSubject, count: number): number {
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`shard count must be a positive integer, got ${count}`);
  switch (subject.kind) {
    case 'cluster':
      if (subject.shard !== undefined && Number.isInteger(subject.shard) && subject.shard >= 0) {
        return subject.shard % count;
      }
      return fnv1a32(`${subject.namespace}/${subject.name}`) % count;
    case 'namespace':
      return fnv1a32(subject.namespace) % count;
  }
}

export function controllerLeaseName(shard: number): string {
  return `convoy-controller-shard-${shard}`;
}

export function observerLeaseName(shard: number): string {
  return `convoy-observer-shard-${shard}`;
}
