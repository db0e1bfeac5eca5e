// The status a probe result gives a Cluster: its Ready condition and server version. Pure, so the
// controller's write is a function of (cached Cluster, probe result, now); lastTransitionTime moves
// only when Ready's status does, so a steady probe yields the cached status and writes nothing.
import type { Cluster, ClusterCondition, ClusterStatus, Condition } from '../../api/types.ts';
import { assertNever } from '../../lib/assert-never.ts';

export type ProbeResult =
  | { readonly kind: 'reachable'; readonly version: string }
  | { readonly kind: 'unreachable'; readonly message: string }
  | { readonly kind: 'secretNotFound'; readonly message: string }
  | { readonly kind: 'invalidKubeconfig'; readonly message: string }
  /** spec.paused: not probed at all. */
  | { readonly kind: 'paused' };

export const PAUSED_MESSAGE =
  'spec.paused is true: convoy syncs nothing to this cluster and does not probe it';

export function readyCondition(probe: ProbeResult): Omit<ClusterCondition, 'lastTransitionTime'> {
  switch (probe.kind) {
    case 'reachable':
      return { type: 'Ready', status: 'True', reason: 'Reachable', message: `Kubernetes ${probe.version}` };
    case 'unreachable':
      return { type: 'Ready', status: 'False', reason: 'Unreachable', message: probe.message };
    case 'secretNotFound':
      return { type: 'Ready', status: 'False', reason: 'SecretNotFound', message: probe.message };
    case 'invalidKubeconfig':
      return { type: 'Ready', status: 'False', reason: 'InvalidKubeconfig', message: probe.message };
    case 'paused':
      return { type: 'Ready', status: 'False', reason: 'Paused', message: PAUSED_MESSAGE };
    default:
      return assertNever(probe);
  }
}

export function readyOf(cluster: Cluster | undefined): Condition | undefined {
  return cluster?.status?.conditions?.find((c) => c.type === 'Ready');
}

/**
 * The status convoy-controller applies. It sends only the fields it owns (the Ready condition, the server
 * version, observedGeneration); serverVersion is left out unless this probe reached the server, so the
 * status never shows a version a cluster it cannot reach may no longer run.
 */
export function clusterStatus(cluster: Cluster, probe: ProbeResult, now: string): ClusterStatus {
  const generation = cluster.metadata.generation;
  const next = readyCondition(probe);
  const prior = readyOf(cluster);
  const condition: Condition = {
    ...next,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    lastTransitionTime: prior !== undefined && prior.status === next.status ? prior.lastTransitionTime : now,
  };
  return {
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    conditions: [condition],
    ...(probe.kind === 'reachable' ? { serverVersion: probe.version } : {}),
  };
}
