import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Cluster, ClusterSpec, Condition, Release } from '../../api/types.ts';
import { decideTarget, type TargetDecision } from './target.ts';

function release(spec: { cluster?: string; sa?: string } = {}): Release {
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { name: 'web', namespace: 'team-a' },
    spec: {
      source: { inline: { manifests: '' } },
      ...(spec.cluster === undefined ? {} : { cluster: { name: spec.cluster } }),
      ...(spec.sa === undefined ? {} : { serviceAccountName: spec.sa }),
    },
  };
}

function cluster(spec: ClusterSpec, ready?: Partial<Condition>, generation = 2): Cluster {
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name: 'prod', namespace: 'team-a', generation },
    spec,
    ...(ready === undefined
      ? {}
      : {
          status: {
            conditions: [
              {
                type: 'Ready',
                status: 'True',
                reason: 'Reachable',
                message: 'Kubernetes v1.36.3',
                lastTransitionTime: '2026-01-01T00:00:00Z',
                observedGeneration: generation,
                ...ready,
              },
            ],
          },
        }),
  };
}

const secretRef = { name: 'prod-kubeconfig', key: 'kubeconfig' };
const SA_USER = 'system:serviceaccount:team-a:deployer';

describe('decideTarget', () => {
  const remote = cluster({ kubeconfigSecretRef: secretRef }, {});
  const table: [string, Release, Cluster | undefined, TargetDecision][] = [
    [
      'no spec.cluster: local, as convoy',
      release(),
      undefined,
      { kind: 'local', name: 'local', impersonate: undefined },
    ],
    [
      'no spec.cluster, a service account: local, impersonated',
      release({ sa: 'deployer' }),
      undefined,
      { kind: 'local', name: 'local', impersonate: SA_USER },
    ],
    [
      'a Cluster with a kubeconfig Secret: remote',
      release({ cluster: 'prod', sa: 'deployer' }),
      remote,
      { kind: 'remote', name: 'prod', cluster: remote, secretRef },
    ],
    [
      'a Cluster without kubeconfig: the local cluster, still impersonated',
      release({ cluster: 'prod', sa: 'deployer' }),
      cluster({}, {}),
      { kind: 'local', name: 'prod', impersonate: SA_USER },
    ],
    [
      'a Cluster not yet probed is tried',
      release({ cluster: 'prod' }),
      cluster({ kubeconfigSecretRef: secretRef }),
      { kind: 'remote', name: 'prod', cluster: cluster({ kubeconfigSecretRef: secretRef }), secretRef },
    ],
    [
      'Ready=Unknown is tried',
      release({ cluster: 'prod' }),
      cluster({}, { status: 'Unknown', reason: 'Unreachable' }),
      { kind: 'local', name: 'prod', impersonate: undefined },
    ],
    [
      'missing Cluster: ClusterNotFound',
      release({ cluster: 'prod' }),
      undefined,
      {
        kind: 'unavailable',
        reason: 'ClusterNotFound',
        message:
          'Cluster "prod" not found in namespace "team-a" (a Release can only target a Cluster of its own namespace)',
      },
    ],
    [
      'Ready=False: ClusterNotReady with its reason and message',
      release({ cluster: 'prod' }),
      cluster(
        { kubeconfigSecretRef: secretRef },
        { status: 'False', reason: 'Unreachable', message: 'cannot reach x' },
      ),
      {
        kind: 'unavailable',
        reason: 'ClusterNotReady',
        message: 'Cluster "prod" is not Ready (Unreachable): cannot reach x',
      },
    ],
    [
      'Ready=False for an older generation is not trusted',
      release({ cluster: 'prod' }),
      cluster({}, { status: 'False', reason: 'SecretNotFound', observedGeneration: 1 }, 2),
      { kind: 'local', name: 'prod', impersonate: undefined },
    ],
    [
      'paused wins over not Ready',
      release({ cluster: 'prod' }),
      cluster({ paused: true }, { status: 'False', reason: 'Paused' }),
      { kind: 'paused', message: 'Cluster "prod" is paused (spec.paused): nothing is synced to it' },
    ],
  ];
  for (const [name, r, c, want] of table) {
    it(name, () => assert.deepEqual(decideTarget(r, c), want));
  }
});
