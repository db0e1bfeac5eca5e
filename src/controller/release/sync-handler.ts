// syncHandler: one key's reconcile as the harness runs it. Reads the Release from the cache, keeps the
// finalizer, runs deletion or reconcile, assembles the status and writes it once (like Flux's
// finalizeStatus; skipped when nothing changed), emits Events, collects old renders, and tells the
// queue when to come back: error backoff for failures a retry may fix, else nextWakeUp.
import { FINALIZER } from '../../api/constants.ts';
import type { Release } from '../../api/types.ts';
import { isConflict } from '../../kube/errors.ts';
import { nameOf, namespaceOf } from '../../lib/names.ts';
import { isSuperseded, type ReconcileResult } from '../../runtime/index.ts';
import { gcDue, mayBeStored, rendersToKeep } from '../../store/keep.ts';
import { deletionHandler } from './act/deletion.ts';
import {
  eventBeforeReplacing,
  eventObject,
  eventsFor,
  newWarnings,
  type ReleaseEvent,
  recordEvents,
  recoveredRolloutEvent,
  rolloutEventName,
  rolloutKey,
} from './act/events.ts';
import { addFinalizer } from './act/finalizer.ts';
import { CONFLICT_REQUEUE_MS, writeReleaseStatus } from './act/write-status.ts';
import { type RolloutTransition, rolloutTransition } from './decide/rollout/index.ts';
import { type ControllerStatus, releaseStatus } from './decide/status.ts';
import type { ReleaseDeps } from './deps.ts';
import type { Outcome } from './outcome.ts';
import { reconcile } from './reconcile.ts';
import { requeueAfterPass } from './watch/requeue.ts';

export async function syncHandler(cached: Release | undefined, deps: ReleaseDeps): Promise<ReconcileResult> {
  if (cached === undefined) return { kind: 'done' };
  let release = cached;
  const finalizers = release.metadata.finalizers ?? [];
  if (release.metadata.deletionTimestamp !== undefined) {
    if (!finalizers.includes(FINALIZER)) return { kind: 'done' };
    // HOOKS (docs/design.md#hooks): one deletion step; delete hooks' progress goes to Ready.
    return await deletionHandler(release, deps);
  }
  if (!finalizers.includes(FINALIZER)) {
    try {
      const patched = await addFinalizer(deps.local, release);
      deps.noteWritten?.(release, patched);
      release = patched;
    } catch (error) {
      return { kind: 'error', error };
    }
  }

  const outcome = await reconcile(release, deps);
  if (cutShort(outcome, deps.signal)) return { kind: 'error', error: deps.signal?.reason };
  const now = deps.now();
  const status = releaseStatus(release, outcome, now);
  const ns = namespaceOf(release);
  const name = nameOf(release);
  try {
    // The persisted transition this write replaces gets its Event first (see eventBeforeReplacing).
    const replaced = eventBeforeReplacing(release, status.rollout, deps.sentRollouts, now);
    if (replaced !== undefined && release.status?.rollout !== undefined) {
      await createNamedEvent(deps, eventObject(release, replaced, now));
      const key = rolloutKey(release.status.rollout);
      deps.eventedRollouts?.set(release.metadata.uid ?? '', key);
      deps.sentRollouts?.set(release.metadata.uid ?? '', key);
    }
    // Lost to a newer write: nothing of this pass is recorded, so the next one redoes it from that write.
    if ((await writeReleaseStatus(release, status, deps)) === 'conflict')
      return { kind: 'requeueAfter', ms: CONFLICT_REQUEUE_MS };
  } catch (error) {
    return { kind: 'error', error };
  }
  const transition = rolloutTransition(release.status?.rollout, status.rollout, status.lastHealthy);
  if (transition !== undefined) {
    const { message: _, eventType: __, eventReason: ___, ...fields } = transition;
    deps.log.info(fields, transition.message);
  }
  // A rollout Event counts as announced once the API server holds it, not when queued: a kill -9 with it
  // still queued, after the next transition is written, must leave it to eventBeforeReplacing.
  const sentKey = status.rollout === undefined ? undefined : rolloutKey(status.rollout);
  const sentName = status.rollout === undefined ? undefined : rolloutEventName(release, status.rollout);
  recordEvents(
    deps,
    release,
    [
      ...rolloutEvents(release, status, transition, deps.eventedRollouts, now),
      ...eventsFor(release.status?.conditions, status.conditions, outcome.notes),
      ...newWarnings(release.status?.message, outcome.warnings ?? []),
    ],
    now,
    (e) => {
      if (sentKey !== undefined && e.name !== undefined && e.name === sentName)
        deps.sentRollouts?.set(release.metadata.uid ?? '', sentKey);
    },
  );
  if ((status.history?.length ?? 0) > 0 && status.history !== undefined && outcome.applied !== undefined) {
    const uid = release.metadata.uid ?? '';
    const keep = rendersToKeep(status, release.spec);
    try {
      if (gcDue(mayBeStored(deps.mayBeStored?.get(uid), release.status, outcome.applied.renderRef), keep))
        await deps.store.gc(ns, name, keep);
      deps.mayBeStored?.set(uid, new Set(keep));
    } catch (err) {
      deps.log.warn({ err: String(err) }, 'render store gc failed');
    }
  }

  if (outcome.notes.length > 0) deps.log.info({ notes: outcome.notes }, 'sync notes');
  const result = outcome.result;
  if (result.kind === 'failed') {
    deps.log.info({ reason: result.error.reason, err: result.error.message }, 'reconcile failed');
    if (!result.error.stalled) return { kind: 'error', error: result.error };
  }
  return requeueAfterPass(release, status, now, false);
}

/**
 * The rollout Events of a reconcile: the persisted transition again when this process has not recorded
 * it (an earlier process may have died between its status write and the send; the fixed name keeps it
 * from being recorded twice), then the transition this reconcile made.
 */
function rolloutEvents(
  release: Release,
  status: ControllerStatus,
  transition: RolloutTransition | undefined,
  evented: Map<string, string> | undefined,
  now: number,
): ReleaseEvent[] {
  const out: ReleaseEvent[] = [];
  const uid = release.metadata.uid ?? '';
  const prior = release.status?.rollout;
  if (evented !== undefined && prior !== undefined && evented.get(uid) !== rolloutKey(prior)) {
    const e = recoveredRolloutEvent(release, prior, release.status?.lastHealthy, now);
    if (e !== undefined) out.push(e);
  }
  if (transition !== undefined && status.rollout !== undefined) {
    out.push({
      type: transition.eventType,
      reason: transition.eventReason,
      message: transition.message,
      name: rolloutEventName(release, status.rollout),
    });
  }
  if (evented !== undefined && status.rollout !== undefined) evented.set(uid, rolloutKey(status.rollout));
  return out;
}

/**
 * A pass aborted for a newer change (deletion, a sync request) records nothing only when the abort cut it
 * short: it stops only the source fetch, so a failed result is the abort's. A pass that got past the
 * render ran its sync to the end and is recorded (the key runs again for the newer change). Dropping
 * those too let an observer that asks for a sync every few seconds starve a Release whose sync takes
 * longer: applied again and again, never recorded (chaos seed 2). Pure.
 */
export function cutShort(outcome: Pick<Outcome, 'result'>, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && isSuperseded(signal.reason) && outcome.result.kind === 'failed';
}

/** Creates an Event with a fixed name now (bounded by the client's timeout); a 409 means it is recorded. */
async function createNamedEvent(deps: Pick<ReleaseDeps, 'local'>, event: Record<string, unknown>) {
  try {
    await deps.local.create(event as never);
  } catch (err) {
    if (!isConflict(err)) throw err;
  }
}
