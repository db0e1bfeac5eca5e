// Builders of planFleet's inputs for its table tests: a member's Release as observed, a member, and
// the whole input at NOW for revision R.
import type { ReleaseView } from './observe.ts';
import type { PlanInput, PlanMember } from './plan.ts';

export const NOW = '2026-12-02T05:00:00Z';
export const R = 'rev2';
export const ref = (c: string) => `sha256:${c.repeat(64).slice(0, 64)}`;

export function release(
  train: string | undefined,
  state: 'Progressing' | 'Succeeded' | 'Failed' | 'RolledBack' | 'Pending',
  extra: Partial<ReleaseView> = {},
): ReleaseView {
  return {
    name: 'x',
    train,
    revision: train?.split('.')[0],
    pending: state === 'Pending',
    rollout:
      state === 'Pending'
        ? undefined
        : {
            state,
            current: true,
            finishedAt: state === 'Succeeded' ? '2026-12-02T04:59:50Z' : undefined,
            reason: state === 'Failed' ? 'DeadlineExceeded' : undefined,
          },
    hasFailurePolicy: true,
    appliedHealthy: false,
    lastHealthyRenderRef: ref('a'),
    lastSuccessfulRenderRef: ref('b'),
    healthyBefore: ref('a'),
    pin: undefined,
    health: 'True',
    blocked: undefined,
    verified: undefined,
    ...extra,
  };
}

export function member(
  cluster: string,
  wave: number,
  rel?: ReleaseView,
  extra: Partial<PlanMember> = {},
): PlanMember {
  const release = rel === undefined ? undefined : { ...rel, name: `set-${cluster}` };
  return {
    cluster,
    name: `set-${cluster}`,
    wave,
    paused: false,
    inputError: undefined,
    clusterNotReady: undefined,
    release,
    prior: undefined,
    ...extra,
  };
}

export function input(members: PlanMember[], extra: Partial<PlanInput> = {}): PlanInput {
  return {
    now: NOW,
    nowMs: Date.parse(NOW),
    revision: R,
    trainId: R,
    priorTrain: undefined,
    goodRevision: 'rev1',
    maxParallel: undefined,
    soakMs: 0,
    waveSoakMs: new Map(),
    fleetRollback: true,
    members,
    strays: [],
    noMembers: 'spec.clusterSelector {} matches no Cluster in namespace shop',
    ...extra,
  };
}
