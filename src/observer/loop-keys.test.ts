// Table tests of the Cluster-event rule the health and drift loops share.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Cluster } from '../api/types.ts';
import { clusterUpdateMatters } from './loop-keys.ts';

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
