// The cluster wave gate's input, read from the release controller's caches (docs/design.md#fleets): the
// wave of a Release's Cluster and its peers, the Releases of the same namespace and source on a Cluster
// with a wave. The decision is clusterWaveGate's (sync/gates.ts).

import { LABEL_RELEASE_SET } from '../../../api/constants.ts';
import type { Cluster, Release } from '../../../api/types.ts';
import { nameOf, namespaceOf } from '../../../lib/names.ts';
import { sourceIdentity, type WavePeer } from '../decide/sync/index.ts';
import type { ReleaseDeps } from '../deps.ts';

interface Cache<T> {
  get(key: string): T | undefined;
  byIndex(index: string, key: string): readonly T[];
}

export function clusterWaveOf(
  releases: Cache<Release>,
  clusters: Pick<Cache<Cluster>, 'get'>,
  byNamespace: string,
): NonNullable<ReleaseDeps['clusterWave']> {
  return (release, revision) => {
    const ns = namespaceOf(release);
    const waveOf = (r: Release) => {
      const c = r.spec.cluster?.name;
      return c === undefined ? undefined : clusters.get(`${ns}/${c}`)?.spec.wave;
    };
    // A ReleaseSet's Release is gated by its set (docs/design.md#fleets), never by a hand-made train.
    const fleet = (r: Release) => r.metadata.labels?.[LABEL_RELEASE_SET] !== undefined;
    const wave = fleet(release) ? undefined : waveOf(release);
    // Without a wave the gate is open whoever the peers are (clusterWaveGate): none are looked up.
    if (wave === undefined) return { wave, revision, peers: [] };
    const identity = sourceIdentity(release.spec.source);
    const peers: WavePeer[] = releases
      .byIndex(byNamespace, ns)
      .filter((r) => r.metadata.name !== release.metadata.name)
      .filter((r) => !fleet(r) && waveOf(r) !== undefined && sourceIdentity(r.spec.source) === identity)
      .map((r) => ({
        release: nameOf(r),
        cluster: r.spec.cluster?.name ?? '',
        clusterWave: waveOf(r) ?? 0,
        lastSuccessfulRevision: r.status?.lastSuccessful?.revision,
        rollout: r.status?.rollout,
      }));
    return { wave, revision, peers };
  };
}
