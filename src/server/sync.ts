// What a POST /sync writes on the Release (docs/design.md#field-ownership): the convoy-api annotations —
// each time or render with the requester beside it, in the same apply so the two never disagree —
// decided from the Release as read, the request and who made it, and the Event that tells who asked.
// Pure; sync-write.ts applies the result with Server-Side Apply.
import { API_REQUEST_ANNOTATIONS, type ApiRequest } from '../api/constants.ts';
import { type Requester, requesterValue } from '../api/requester.ts';
import type { Release } from '../api/types.ts';
import { nameOf, namespaceOf } from '../lib/names.ts';
import type { SyncRequest } from './body.ts';
import { type ApiError, apiError } from './status.ts';

/** Every annotation the convoy-api field manager owns. */
export const API_ANNOTATIONS: readonly string[] = Object.values(API_REQUEST_ANNOTATIONS).flatMap((a) => [
  a.value,
  a.by,
]);

/** The requester in a sentence: "alice", "a push to main (Receiver shop/github)". Pure. */
export function describeRequester(by: Requester): string {
  switch (by.kind) {
    case 'user':
      return by.username;
    case 'receiver':
      return `a push${by.branch === undefined ? '' : ` to ${by.branch}`} (Receiver ${by.namespace}/${by.name})`;
  }
}

/** The Event a sync request records on its Release, naming who asked and what they asked for. Pure. */
export function syncEvent(
  set: SyncSet,
  by: Requester,
): { readonly reason: string; readonly message: string } {
  const who = describeRequester(by);
  const what = set.forceSyncAt === undefined ? 'sync requested' : 'forced sync requested';
  if (set.acceptedRender !== undefined) {
    return {
      reason: 'RenderAccepted',
      message: `render ${set.acceptedRender} accepted despite an inconclusive verification and ${what} by ${who}`,
    };
  }
  if (set.approvedRender !== undefined) {
    return {
      reason: 'RenderApproved',
      message: `render ${set.approvedRender} approved and ${what} by ${who}`,
    };
  }
  return {
    reason: set.forceSyncAt === undefined ? 'SyncRequested' : 'ForcedSyncRequested',
    message: `${what} by ${who}`,
  };
}

/** What this request set (the response body reports it). */
export interface SyncSet {
  readonly syncRequestedAt: string;
  readonly approvedRender?: string;
  /** The render accepted while its verification was inconclusive. */
  readonly acceptedRender?: string;
  readonly forceSyncAt?: string;
}

export interface SyncPlan {
  /**
   * The full set of convoy-api annotations to apply. An apply that left out an annotation this manager
   * applied before would delete it, so the ones this request does not set are carried over as read —
   * otherwise the observer's next plain /sync would erase a pending approval or forced sync.
   */
  readonly annotations: Readonly<Record<string, string>>;
  readonly set: SyncSet;
}

export type SyncDecision =
  | { readonly ok: true; readonly plan: SyncPlan }
  | { readonly ok: false; readonly error: ApiError };

/**
 * An RFC 3339 time (milliseconds, UTC) strictly after `previous`: each request must change the value,
 * or the write is a no-op, no watch event fires and the controller never wakes for it (and a forced
 * sync equal to lastHandledForceSyncAt would count as handled). Replicas' clocks may differ, hence +1 ms.
 */
export function nextStamp(now: Date, previous: string | undefined): string {
  const prev = previous === undefined ? Number.NaN : Date.parse(previous);
  const t = Number.isNaN(prev) || prev < now.getTime() ? now.getTime() : prev + 1;
  return new Date(t).toISOString();
}

type ReleaseView = Pick<Release, 'metadata' | 'spec' | 'status'>;

/** The rollout's render when its Verified condition says it waits for a person (inconclusive), else undefined. */
export function heldForAcceptance(release: ReleaseView): string | undefined {
  const rollout = release.status?.rollout;
  if (release.spec.verification === undefined || rollout?.state !== 'Progressing') return undefined;
  const verified = release.status?.conditions?.find((c) => c.type === 'Verified');
  return verified?.reason === 'VerificationInconclusive' ? rollout.renderRef : undefined;
}

export function planSync(
  release: ReleaseView,
  req: SyncRequest,
  now: Date,
  /** Unset (convoy sync --direct, which knows no authenticated user): the *-by of what it sets is removed. */
  by?: Requester,
): SyncDecision {
  const current = release.metadata.annotations ?? {};
  const where = `release ${namespaceOf(release)}/${nameOf(release)}`;
  let approvedRender: string | undefined;
  // A rollout held by an inconclusive verification: approving accepts its render (docs/design.md#verification).
  const acceptedRender = req.approve ? heldForAcceptance(release) : undefined;
  if (req.approve && acceptedRender === undefined) {
    const mode = release.spec.syncPolicy?.mode ?? 'Auto';
    if (mode !== 'Manual') {
      return {
        ok: false,
        error: apiError(
          409,
          `cannot approve: ${where} is in ${mode} mode; approval applies only to syncPolicy.mode Manual (nothing was written)`,
        ),
      };
    }
    approvedRender = release.status?.currentRender?.renderRef;
    if (approvedRender === undefined || approvedRender === '') {
      return {
        ok: false,
        error: apiError(
          409,
          `cannot approve: ${where} has no current render yet (status.currentRender is unset; wait for the controller to render it; nothing was written)`,
        ),
      };
    }
  }
  const syncRequestedAt = nextStamp(now, current[API_REQUEST_ANNOTATIONS.sync.value]);
  const forceSyncAt = req.force ? nextStamp(now, current[API_REQUEST_ANNOTATIONS.force.value]) : undefined;

  const annotations: Record<string, string> = {};
  for (const key of API_ANNOTATIONS) {
    const v = current[key];
    if (v !== undefined && v !== '') annotations[key] = v;
  }
  // Each value set here gets its requester beside it, or loses the one of an earlier request: a *-by
  // must never name someone for a request they did not make.
  const stamp = (request: ApiRequest, value: string) => {
    const keys = API_REQUEST_ANNOTATIONS[request];
    annotations[keys.value] = value;
    if (by === undefined) delete annotations[keys.by];
    else annotations[keys.by] = requesterValue(by);
  };
  stamp('sync', syncRequestedAt);
  if (approvedRender !== undefined) stamp('approve', approvedRender);
  if (acceptedRender !== undefined) stamp('accept', acceptedRender);
  if (forceSyncAt !== undefined) stamp('force', forceSyncAt);
  return {
    ok: true,
    plan: {
      annotations,
      set: {
        syncRequestedAt,
        ...(approvedRender === undefined ? {} : { approvedRender }),
        ...(acceptedRender === undefined ? {} : { acceptedRender }),
        ...(forceSyncAt === undefined ? {} : { forceSyncAt }),
      },
    },
  };
}
