import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testRelease } from '../../../api/testsupport.ts';
import type { Cluster, ClusterSpec, Condition, Release } from '../../../api/types.ts';
import { readyTrue, testCluster } from '../../cluster/fixtures.ts';
import { decideTarget, type TargetDecision, type Tenancy } from './target.ts';

const release = (spec: { cluster?: string; sa?: string } = {}): Release =>
  testRelease('team-a', 'web', {
    ...(spec.cluster === undefined ? {} : { cluster: { name: spec.cluster } }),
    ...(spec.sa === undefined ? {} : { serviceAccountName: spec.sa }),
  });

function cluster(spec: ClusterSpec, ready?: Partial<Condition>, generation = 2): Cluster {
  const base = {
    message: 'Kubernetes v1.36.3',
    lastTransitionTime: '2026-01-01T00:00:00Z',
    observedGeneration: generation,
  };
  return testCluster({
    namespace: 'team-a',
    spec,
    generation,
    ...(ready === undefined ? {} : { ready: readyTrue(base, ready) }),
  });
}

const secretRef = { name: 'prod-kubeconfig', key: 'kubeconfig' };
const SA_USER = 'system:serviceaccount:team-a:deployer';

const CLUSTER: Tenancy = { mode: 'cluster' };

describe('decideTarget (cluster mode)', () => {
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
    it(name, () => assert.deepEqual(decideTarget(r, c, CLUSTER), want));
  }
});

describe('decideTarget: as whom a Release writes, by tenancy mode', () => {
  const TENANT: Tenancy = { mode: 'tenant' };
  const WITH_DEFAULT: Tenancy = { mode: 'tenant', defaultServiceAccount: 'convoy-deployer' };
  const refused: TargetDecision = {
    kind: 'refused',
    message:
      'Release team-a/web has no spec.serviceAccountName, and convoy runs in tenant mode without ' +
      '--default-service-account: set spec.serviceAccountName to a ServiceAccount of namespace "team-a" ' +
      'allowed to write the render (or target a Cluster with a kubeconfig); nothing was applied',
  };
  const remote = cluster({ kubeconfigSecretRef: secretRef }, {});
  const local = (impersonate: string | undefined): TargetDecision => ({
    kind: 'local',
    name: 'local',
    impersonate,
  });
  const table: [string, Release, Cluster | undefined, Tenancy, TargetDecision][] = [
    ['tenant, no account, no default: refused', release(), undefined, TENANT, refused],
    [
      'tenant, no account, a default: the default of its own namespace',
      release(),
      undefined,
      WITH_DEFAULT,
      local('system:serviceaccount:team-a:convoy-deployer'),
    ],
    [
      'tenant, an account: that account, whatever the default',
      release({ sa: 'deployer' }),
      undefined,
      WITH_DEFAULT,
      local(SA_USER),
    ],
    ['tenant, an account, no default', release({ sa: 'deployer' }), undefined, TENANT, local(SA_USER)],
    [
      'tenant, a local Cluster (no kubeconfig), no account: refused too',
      release({ cluster: 'prod' }),
      cluster({}, {}),
      TENANT,
      refused,
    ],
    [
      'tenant, a remote Cluster, no account: its kubeconfig is the identity',
      release({ cluster: 'prod' }),
      remote,
      TENANT,
      { kind: 'remote', name: 'prod', cluster: remote, secretRef },
    ],
    ['cluster, no account: convoy itself', release(), undefined, CLUSTER, local(undefined)],
    [
      'cluster, an account: still impersonated',
      release({ sa: 'deployer' }),
      undefined,
      CLUSTER,
      local(SA_USER),
    ],
  ];
  for (const [name, r, c, t, want] of table) {
    it(name, () => assert.deepEqual(decideTarget(r, c, t), want));
  }
});
