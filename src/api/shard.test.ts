// Table tests of the shard rule and the Release → Cluster index both processes share: the subject each
// Release gives, and the shard src/runtime's shardOf makes of it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fnv1a32, shardOf } from '../runtime/shard.ts';
import { clusterKeyOfRelease, releaseClusterIndex, releaseShardSubject } from './shard.ts';
import type { Cluster, Release } from './types.ts';

const release = (namespace: string, cluster?: string): Release => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Release',
  metadata: { name: 'r', namespace },
  spec: { source: { inline: { manifests: '' } }, ...(cluster ? { cluster: { name: cluster } } : {}) },
});

const cluster = (shard?: number): Cluster => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name: 'c', namespace: 'ns' },
  spec: shard === undefined ? {} : { shard },
});

describe('releaseShardSubject', () => {
  const count = 11;
  const rows: [string, Release, Cluster | undefined, ReturnType<typeof releaseShardSubject>, number][] = [
    [
      'no Cluster: the namespace',
      release('ns'),
      undefined,
      { kind: 'namespace', namespace: 'ns' },
      fnv1a32('ns') % count,
    ],
    [
      'a Cluster not cached yet: its name',
      release('ns', 'c'),
      undefined,
      { kind: 'cluster', namespace: 'ns', name: 'c' },
      fnv1a32('ns/c') % count,
    ],
    [
      'a Cluster without spec.shard: its name',
      release('ns', 'c'),
      cluster(),
      { kind: 'cluster', namespace: 'ns', name: 'c' },
      fnv1a32('ns/c') % count,
    ],
    [
      'a Cluster pinned by spec.shard',
      release('ns', 'c'),
      cluster(12),
      { kind: 'cluster', namespace: 'ns', name: 'c', shard: 12 },
      1,
    ],
  ];
  for (const [name, r, c, subject, shard] of rows)
    it(name, () => {
      assert.deepEqual(releaseShardSubject(r, c), subject);
      assert.equal(shardOf(releaseShardSubject(r, c), count), shard);
    });
  it('the pinned and hashed answers differ in this table (it can tell them apart)', () => {
    assert.notEqual(fnv1a32('ns/c') % count, 1);
    assert.notEqual(fnv1a32('ns/c') % count, fnv1a32('ns') % count);
  });
});

describe('the Release → Cluster index', () => {
  const rows: [string, Release, string | undefined, string[]][] = [
    ['no Cluster: no key', release('ns'), undefined, []],
    ['a Cluster: namespace/name in the Release namespace', release('ns', 'c'), 'ns/c', ['ns/c']],
  ];
  for (const [name, r, key, index] of rows)
    it(name, () => {
      assert.equal(clusterKeyOfRelease(r), key);
      assert.deepEqual(releaseClusterIndex(r), index);
    });
});
