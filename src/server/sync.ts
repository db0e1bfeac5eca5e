// What a POST /sync writes on the Release (docs/design.md#field-ownership): the three convoy-api annotations,
// decided from the Release as read and the request. Pure; server.ts applies the result with Server-Side
// Apply.
import {
  ANNOTATION_APPROVED_RENDER,
  ANNOTATION_FORCE_SYNC_AT,
  ANNOTATION_SYNC_REQUESTED_AT,
} from '../api/constants.ts';
import type { Release } from '../api/types.ts';
import type { SyncRequest } from './body.ts';
import { type ApiError, apiError } from './status.ts';

/** Every annotation the convoy-api field manager owns. */
export const API_ANNOTATIONS = [
  ANNOTATION_SYNC_REQUESTED_AT,
  ANNOTATION_APPROVED_RENDER,
  ANNOTATION_FORCE_SYNC_AT,
] as const;

/** What this request set (the response body reports it). */
export interface SyncSet {
  readonly syncRequestedAt: string;
  readonly approvedRender?: string;
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

export function planSync(release: ReleaseView, req: SyncRequest, now: Date): SyncDecision {
  const current = release.metadata.annotations ?? {};
  const where = `release ${release.metadata.namespace ?? ''}/${release.metadata.name ?? ''}`;
  let approvedRender: string | undefined;
  if (req.approve) {
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
  const syncRequestedAt = nextStamp(now, current[ANNOTATION_SYNC_REQUESTED_AT]);
  const forceSyncAt = req.force ? nextStamp(now, current[ANNOTATION_FORCE_SYNC_AT]) : undefined;

  const annotations: Record<string, string> = {};
  for (const key of API_ANNOTATIONS) {
    const v = current[key];
    if (v !== undefined && v !== '') annotations[key] = v;
  }
  annotations[ANNOTATION_SYNC_REQUESTED_AT] = syncRequestedAt;
  if (approvedRender !== undefined) annotations[ANNOTATION_APPROVED_RENDER] = approvedRender;
  if (forceSyncAt !== undefined) annotations[ANNOTATION_FORCE_SYNC_AT] = forceSyncAt;
  return {
    ok: true,
    plan: {
      annotations,
      set: {
        syncRequestedAt,
        ...(approvedRender === undefined ? {} : { approvedRender }),
        ...(forceSyncAt === undefined ? {} : { forceSyncAt }),
      },
    },
  };
}
