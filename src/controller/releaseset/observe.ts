// What a member's Release says about the train it was given, read so that a stale status can never pass
// for a new revision (docs/design.md#fleets): the Release's status must have observed its generation and
// any forced sync the set asked for, and a rollout counts only for the render of that reconcile. A
// Release that observed its spec and says it cannot go on (Stalled, or Ready=False for a failure) is
// `blocked`: its train holds at its wave until that changes.
import {
  ANNOTATION_FLEET_REVISION,
  ANNOTATION_FLEET_TRAIN,
  ANNOTATION_FORCE_SYNC_AT,
} from '../../api/constants.ts';
import type { Release } from '../../api/types.ts';
import { nameOf } from '../../lib/names.ts';

export type ReleaseView = {
  readonly name: string;
  /** The fleet-train annotation: the train it was last given. */
  readonly train: string | undefined;
  readonly revision: string | undefined;
  readonly pending: boolean;
  readonly rollout:
    | {
        readonly state: 'Progressing' | 'Succeeded' | 'Failed' | 'RolledBack';
        readonly current: boolean;
        readonly finishedAt?: string | undefined;
        readonly reason?: string | undefined;
        readonly message?: string | undefined;
      }
    | undefined;
  readonly hasFailurePolicy: boolean;
  /** lastSuccessful is the current render and Healthy is True (for a Release without a failurePolicy). */
  readonly appliedHealthy: boolean;
  readonly lastHealthyRenderRef: string | undefined;
  readonly lastSuccessfulRenderRef: string | undefined;
  /**
   * The newest healthy render other than the current one: what a fleet rollback re-applies when the
   * set recorded none (a crash between its apply and its status write).
   */
  readonly healthyBefore: string | undefined;
  readonly pin: string | undefined;
  readonly health: string | undefined;
  /** Why it cannot go on, when its status (of its current spec) says so. */
  readonly blocked: { readonly reason: string; readonly message: string } | undefined;
  /** Its Verified condition, when it is of its current spec: how its checks stand (they name themselves). */
  readonly verified: { readonly reason: string; readonly message: string } | undefined;
};

/** Ready=False reasons that are part of a rollout ending, not a Release that cannot go on. */
const NOT_BLOCKING: ReadonlySet<string> = new Set(['RolledBack', 'Deleting']);

function blockedOf(
  release: Release,
  pending: boolean,
): { readonly reason: string; readonly message: string } | undefined {
  if (pending) return undefined;
  const conditions = release.status?.conditions ?? [];
  const stalled = conditions.find((c) => c.type === 'Stalled' && c.status === 'True');
  const ready = conditions.find((c) => c.type === 'Ready' && c.status === 'False');
  const why = ready !== undefined && !NOT_BLOCKING.has(ready.reason) ? ready : stalled;
  return why === undefined ? undefined : { reason: why.reason, message: why.message ?? '' };
}

/** The Verified condition of the spec the set gave (an older one may be of the render before). */
function verifiedOf(
  release: Release,
  pending: boolean,
  generation: number,
): { readonly reason: string; readonly message: string } | undefined {
  const v = release.status?.conditions?.find((c) => c.type === 'Verified');
  if (pending || v === undefined || v.observedGeneration !== generation) return undefined;
  return { reason: v.reason, message: v.message ?? '' };
}

export type Outcome =
  | { readonly kind: 'Pending' }
  | { readonly kind: 'Progressing' }
  | { readonly kind: 'Succeeded'; readonly at: string | undefined }
  | {
      readonly kind: 'Failed' | 'RolledBack';
      readonly reason: string | undefined;
      readonly message: string | undefined;
    };

export function viewOf(release: Release): ReleaseView {
  const a = release.metadata.annotations ?? {};
  const s = release.status;
  const force = a[ANNOTATION_FORCE_SYNC_AT];
  const generation = release.metadata.generation ?? 0;
  const pending =
    (s?.observedGeneration ?? -1) < generation ||
    (force !== undefined && s?.lastHandledForceSyncAt !== force);
  const current = s?.currentRender?.renderRef;
  const healthy = s?.conditions?.find((c) => c.type === 'Healthy')?.status;
  return {
    name: nameOf(release),
    train: a[ANNOTATION_FLEET_TRAIN],
    revision: a[ANNOTATION_FLEET_REVISION],
    pending,
    rollout:
      s?.rollout === undefined
        ? undefined
        : {
            state: s.rollout.state,
            current: current !== undefined && s.rollout.renderRef === current,
            finishedAt: s.rollout.finishedAt,
            reason: s.rollout.reason,
            message: s.rollout.message,
          },
    hasFailurePolicy: release.spec.failurePolicy !== undefined,
    appliedHealthy: current !== undefined && s?.lastSuccessful?.renderRef === current && healthy === 'True',
    lastHealthyRenderRef: s?.lastHealthy?.renderRef,
    lastSuccessfulRenderRef: s?.lastSuccessful?.renderRef,
    healthyBefore:
      s?.lastHealthy !== undefined && s.lastHealthy.renderRef !== current
        ? s.lastHealthy.renderRef
        : [...(s?.history ?? [])].reverse().find((h) => h.renderRef !== current && h.result === 'Succeeded')
            ?.renderRef,
    pin: release.spec.pin?.renderRef,
    health: healthy,
    blocked: blockedOf(release, pending),
    verified: verifiedOf(release, pending, generation),
  };
}

/** How the train a Release was given is going on it. */
export function outcomeOf(v: ReleaseView): Outcome {
  if (v.pending) return { kind: 'Pending' };
  if (v.pin !== undefined) {
    return v.lastSuccessfulRenderRef === v.pin
      ? { kind: 'Succeeded', at: undefined }
      : { kind: 'Progressing' };
  }
  if (!v.hasFailurePolicy)
    return v.appliedHealthy ? { kind: 'Succeeded', at: undefined } : { kind: 'Progressing' };
  const r = v.rollout;
  if (r === undefined || !r.current) return { kind: 'Progressing' };
  switch (r.state) {
    case 'Progressing':
      return { kind: 'Progressing' };
    case 'Succeeded':
      return { kind: 'Succeeded', at: r.finishedAt };
    case 'Failed':
    case 'RolledBack':
      return { kind: r.state, reason: r.reason, message: r.message };
  }
}
