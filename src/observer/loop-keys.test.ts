// Table tests of the shard and Cluster-event rules the health and drift loops share.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Cluster, Release } from '../api/types.ts';
import { fnv1a32 } from '../runtime/index.ts';
import { clusterUpdateMatters, shardOfRelease } from './loop-keys.ts';

const release = (namespace: string, cluster?: string): Release => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Release',
  metadata: { name: 'r', namespace },
  spec: { source: { inline: { manifests: '' } }, ...(cluster ? { cluster: { name: cluster } } : {}) },
});

const cluster = (
  ready?: { status: 'True' | 'False' | 'Unknown'; reason: string },
  shard?: number,
): Cluster => ({
  apiVersion: 'convoy.kumodo.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name: 'c', namespace: 'ns' },
  spec: shard === undefined ? {} : { shard },
  ...(ready
    ? {
        status: {
          conditions: [{ type: 'Ready', lastTransitionTime: '2030-01-01T00:00:00Z', message: '', ...ready }],
        },
      }
    : {}),
});

describe('shardOfRelease', () => {
  const count = 11;
  const rows: [string, Release, Cluster | undefined, number][] = [
    ['no Cluster: the namespace', release('ns'), undefined, fnv1a32('ns') % count],
    ['a Cluster not cached yet: its name', release('ns', 'c'), undefined, fnv1a32('ns/c') % count],
    ['a Cluster without spec.shard: its name', release('ns', 'c'), cluster(), fnv1a32('ns/c') % count],
    ['a Cluster pinned by spec.shard', release('ns', 'c'), cluster(undefined, 12), 1],
  ];
  for (const [name, r, c, want] of rows) it(name, () => assert.equal(shardOfRelease(r, c, count), want));
  it('the pinned and hashed answers differ in this table (it can tell them apart)', () => {
    assert.notEqual(fnv1a32('ns/c') % count, 1);
    assert.notEqual(fnv1a32('ns/c') % count, fnv1a32('ns') % count);
  });
});

describe('clusterUpdateMatters', () => {
  const rows: [string, Cluster, Cluster, boolean][] = [
    ['Ready appears', cluster(), cluster({ status: 'True', reason: 'Reachable' }), true],
    [
      'Ready flips',
      cluster({ status: 'True', reason: 'Reachable' }),
      cluster({ status: 'False', reason: 'Unreachable' }),
      true,
    ],
    [
      'same status, other reason',
      cluster({ status: 'False', reason: 'Unreachable' }),
      cluster({ status: 'False', reason: 'Unauthorized' }),
      true,
    ],
    [
      'Ready unchanged, spec changed',
      cluster({ status: 'True', reason: 'Reachable' }),
      cluster({ status: 'True', reason: 'Reachable' }, 3),
      false,
    ],
  ];
  for (const [name, o, n, want] of rows) it(name, () => assert.equal(clusterUpdateMatters(o, n), want));
});
