// Manifests the benchmarks create: the same small objects everywhere, so figures compare across scripts.

/** `count` ConfigMaps r<release>-o<i> as one multi-document inline source. */
export function configMapManifests(release: number, count: number): string {
  return Array.from(
    { length: count },
    (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r${release}-o${i}\ndata:\n  i: "${i}"\n`,
  ).join('---\n');
}
