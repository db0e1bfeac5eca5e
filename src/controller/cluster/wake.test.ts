import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Cluster, ClusterSpec, Condition, Release } from '../../api/types.ts';
import { readyTrue, testCluster } from './fixtures.ts';
import { clusterChangeWakesReleases, releaseClusterKeys } from './wake.ts';

function cluster(ready: Partial<Condition> | undefined, spec: ClusterSpec = {}): Cluster {
  const base = { message: 'm', lastTransitionTime: 't' };
  return testCluster({
    namespace: 'team',
    spec,
    ...(ready === undefined ? {} : { ready: readyTrue(base, ready) }),
  });
}

describe('clusterChangeWakesReleases', () => {
  const up = cluster({});
  const table: [string, Cluster | undefined, Cluster | undefined, boolean][] = [
    ['created', undefined, up, true],
    ['deleted', up, undefined, true],
    ['first probe', cluster(undefined), up, true],
    ['Ready True -> False', up, cluster({ status: 'False', reason: 'Unreachable' }), true],
    [
      'reason changed, status kept',
      cluster({ status: 'False', reason: 'Unreachable' }),
      cluster({ status: 'False', reason: 'SecretNotFound' }),
      true,
    ],
    ['message only', up, cluster({ message: 'Kubernetes v1.37.0' }), false],
    ['lastTransitionTime only', up, cluster({ lastTransitionTime: 'later' }), false],
    ['paused', up, cluster({}, { paused: true }), true],
    ['paused: false is the default', up, cluster({}, { paused: false }), false],
    [
      'Secret re-pointed',
      cluster({}, { kubeconfigSecretRef: { name: 'a' } }),
      cluster({}, { kubeconfigSecretRef: { name: 'b' } }),
      true,
    ],
    ['wave changed', up, cluster({}, { wave: 2 }), false],
  ];
  for (const [name, old, next, wakes] of table) {
    it(`${name}: ${wakes}`, () => assert.equal(clusterChangeWakesReleases(old, next), wakes));
  }
});

describe('releaseClusterKeys', () => {
  const release = (cluster?: { name: string }): Release => ({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { name: 'web', namespace: 'team' },
    spec: { source: { inline: { manifests: '' } }, ...(cluster ? { cluster } : {}) },
  });
  it('keys a Release by the Cluster of its own namespace', () => {
    assert.deepEqual(releaseClusterKeys(release({ name: 'prod' })), ['team/prod']);
  });
  it('a Release on the local cluster has no key', () => {
    assert.deepEqual(releaseClusterKeys(release()), []);
  });
});
