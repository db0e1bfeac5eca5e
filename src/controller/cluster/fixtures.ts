// Builders shared by the Cluster tests (wake, status, and the Release's target decision): a Cluster named
// prod, with a Ready condition where a row gives one.
import { API_VERSION } from '../../api/constants.ts';
import type { Cluster, ClusterSpec, Condition } from '../../api/types.ts';

/** A Ready=True/Reachable condition with `over` on top; `base` fills the fields each test fixes. */
export function readyTrue(
  base: Pick<Condition, 'message' | 'lastTransitionTime'> & Partial<Condition>,
  over: Partial<Condition> = {},
): Condition {
  return { type: 'Ready', status: 'True', reason: 'Reachable', ...base, ...over };
}

export function testCluster(o: {
  readonly namespace: string;
  readonly spec?: ClusterSpec;
  readonly generation?: number;
  readonly ready?: Condition;
}): Cluster {
  return {
    apiVersion: API_VERSION,
    kind: 'Cluster',
    metadata: {
      name: 'prod',
      namespace: o.namespace,
      ...(o.generation === undefined ? {} : { generation: o.generation }),
    },
    spec: o.spec ?? {},
    ...(o.ready === undefined ? {} : { status: { conditions: [o.ready] } }),
  };
}
