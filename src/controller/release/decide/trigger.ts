// What made the controller attempt a render (docs/design.md#history-and-triggers): decided once, in the
// pass that first records the attempt, from what that reconcile read, then carried into the render's
// history entry and never decided again — a later request, pin or wake-up cannot relabel it. Pure.
import {
  ANNOTATION_APPROVED_BY,
  ANNOTATION_APPROVED_RENDER,
  ANNOTATION_FORCE_SYNC_BY,
  ANNOTATION_SYNC_REQUESTED_AT,
  ANNOTATION_SYNC_REQUESTED_BY,
} from '../../../api/constants.ts';
import { byObserver, parseRequester, requesterValue } from '../../../api/requester.ts';
import type { AttemptTrigger } from '../../../api/types.ts';

/** A person's or a push's request: the *-by annotation the API wrote beside it, if any. */
export interface Request {
  readonly by?: string | undefined;
}

export interface TriggerInput {
  /** This pass re-applied the last healthy render (applyLastHealthy), with the rollout's reason. */
  readonly rollback?: { readonly reason?: string | undefined } | undefined;
  /** spec.pin names the render (convoy pin or rollback, or the UI). */
  readonly pinned: boolean;
  /** A forced sync pending in this pass. */
  readonly forced?: Request | undefined;
  /** syncPolicy.mode Manual and approved-render names this render. */
  readonly approved?: Request | undefined;
  /** A sync request this controller had not seen yet (requestedSync), never the observer's wake-up. */
  readonly requested?: Request | undefined;
  /** The revision of the render applied (else attempted) before; undefined: the Release's first. */
  readonly previousRevision: string | undefined;
  readonly revision: string;
  readonly generation: number;
  /** status.observedGeneration before this pass. */
  readonly observedGeneration: number | undefined;
}

/** The longest value kept of who asked (the schema's maxLength). */
const MAX_BY = 256;
const MAX_REASON = 256;

/**
 * The recorded requester: only a value convoy's API writes (user:<name>, receiver:<ns>/<name>), cut to
 * MAX_BY; anything else someone wrote by hand into a *-by annotation is not recorded.
 */
export function recordedBy(value: string | undefined): string | undefined {
  const by = parseRequester(value);
  return by === undefined ? undefined : requesterValue(by).slice(0, MAX_BY);
}

const asked = (kind: 'ForcedSync' | 'Approval' | 'SyncRequest', r: Request): AttemptTrigger => {
  const by = recordedBy(r.by);
  return by === undefined ? { kind } : { kind, by };
};

/**
 * The trigger of the attempt this pass records, first match wins: the controller's own rollback, a pin,
 * a forced sync, an approval, a sync request, then what changed — none before (the first render), the
 * source revision, the spec — else the controller's own resync (same revision and spec: the interval or a
 * retry after an error rendered or applied it).
 */
export function attemptTrigger(i: TriggerInput): AttemptTrigger {
  if (i.rollback !== undefined) {
    const reason = i.rollback.reason?.slice(0, MAX_REASON);
    return reason === undefined || reason === '' ? { kind: 'Rollback' } : { kind: 'Rollback', reason };
  }
  if (i.pinned) return { kind: 'Pin' };
  if (i.forced !== undefined) return asked('ForcedSync', i.forced);
  if (i.approved !== undefined) return asked('Approval', i.approved);
  if (i.requested !== undefined) return asked('SyncRequest', i.requested);
  if (i.previousRevision === undefined) return { kind: 'Created' };
  if (i.previousRevision !== i.revision) return { kind: 'Source' };
  if (i.observedGeneration !== i.generation) return { kind: 'Spec', generation: i.generation };
  return { kind: 'Resync' };
}

/**
 * The sync request in the annotations when it is one this controller has not seen yet (its time is not
 * status.lastHandledSyncRequestAt) and a person or a push made it: the observer's wake-ups
 * (docs/design.md#controller-wake-ups) are never a request, and are not remembered as seen.
 */
export function requestedSync(
  annotations: Readonly<Record<string, string>> | undefined,
  lastHandledSyncRequestAt: string | undefined,
): (Request & { readonly at: string }) | undefined {
  const at = annotations?.[ANNOTATION_SYNC_REQUESTED_AT];
  if (at === undefined || at === '' || at === lastHandledSyncRequestAt) return undefined;
  const by = annotations?.[ANNOTATION_SYNC_REQUESTED_BY];
  return byObserver(by) ? undefined : { at, by };
}

/** The approval of `renderRef` in syncPolicy.mode Manual, with who gave it; undefined otherwise. */
export function approvalOf(
  annotations: Readonly<Record<string, string>> | undefined,
  mode: string | undefined,
  renderRef: string,
): Request | undefined {
  if (mode !== 'Manual' || annotations?.[ANNOTATION_APPROVED_RENDER] !== renderRef) return undefined;
  return { by: annotations[ANNOTATION_APPROVED_BY] };
}

/** The forced sync's requester, when one is pending. */
export function forcedBy(
  annotations: Readonly<Record<string, string>> | undefined,
  pending: boolean,
): Request | undefined {
  return pending ? { by: annotations?.[ANNOTATION_FORCE_SYNC_BY] } : undefined;
}
