// Kubernetes Events (core/v1) about a Release: one per distinct (type, reason, message) in a reconcile,
// and only for what changed (a new Ready state, a sync's notes), so a steady reconcile emits none. They
// go through the process's EventRecorder, so an API server that is away for a moment loses none.
// A rollout transition's Event has a name fixed by the transition, so the controller that comes up after
// a kill -9 between the status write and the send can record it again without ever recording it twice
// (see recoveredRolloutEvent).
import { createHash } from 'node:crypto';
import type { Condition, Release } from '../../../api/types.ts';
import { isConflict } from '../../../kube/errors.ts';
import { nameOf } from '../../../lib/names.ts';
import {
  type RenderStamp,
  type Rollout,
  type RolloutTransition,
  rolloutTransition,
} from '../decide/rollout/index.ts';
import type { ControllerStatus } from '../decide/status.ts';
import type { ReleaseWarning } from '../decide/warnings.ts';
import type { ReleaseDeps } from '../deps.ts';
import type { Outcome } from '../outcome.ts';

export interface ReleaseEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
  /** A fixed Event name (idempotent: a second create is a 409, counted as recorded); else generated. */
  readonly name?: string;
}

/**
 * How old a persisted rollout transition may be for a restarted controller to record its Event again
 * (it may have died between writing the status and sending). Kept well under the API server's Event
 * lifetime (one hour by default), so a routine restart does not re-announce long-settled rollouts.
 */
export const RECOVER_EVENT_WINDOW_MS = 15 * 60_000;

/** What identifies one rollout transition: its state, render and clock. Pure. */
export function rolloutKey(rollout: Rollout): string {
  return [rollout.state, rollout.renderRef, rollout.startedAt ?? '', rollout.finishedAt ?? ''].join('|');
}

/** The Event name of the transition into `rollout`: the same in every process. Pure. */
export function rolloutEventName(release: Release, rollout: Rollout): string {
  const h = createHash('sha256')
    .update(`${release.metadata.uid ?? ''}|${rolloutKey(rollout)}`)
    .digest('hex')
    .slice(0, 16);
  return `${(nameOf(release)).slice(0, 200)}.rollout-${h}`;
}

/**
 * The Event of a persisted transition this process has not recorded itself, when it is recent enough
 * that an earlier process may have died before sending it; the fixed name makes it a no-op when that
 * process did send it. The earlier state is not known any more, so the message starts at the arrow. Pure.
 */
export function recoveredRolloutEvent(
  release: Release,
  rollout: Rollout,
  lastHealthy: RenderStamp | undefined,
  now: number,
): ReleaseEvent | undefined {
  const at = Date.parse(rollout.finishedAt ?? rollout.startedAt ?? '');
  if (!Number.isFinite(at) || now - at > RECOVER_EVENT_WINDOW_MS) return undefined;
  const t = rolloutTransition(undefined, rollout, lastHealthy);
  if (t === undefined) return undefined;
  return {
    type: t.eventType,
    reason: t.eventReason,
    message: `${t.message.replace(/^rollout None \u2192 /, 'rollout → ')} (recorded after a controller restart)`,
    name: rolloutEventName(release, rollout),
  };
}

/**
 * The Event of the persisted transition that this reconcile is about to write over, when this process
 * has not recorded it (it came up after the process that wrote it): it must be created before the status
 * write, not queued after it. Queued, a kill -9 between the write and the send lost it for good, because
 * the next process recovers only the transition then persisted (chaos seed 8: Succeeded(R1) written,
 * the controller killed, its successor wrote Progressing(R2) and was killed 1.5 s later with the
 * recovered Succeeded(R1) Event still queued). `sent` holds the transitions whose Event the API server
 * holds (sent, not only queued: the same loss happens to a process killed with its own Event queued).
 * Undefined when the rollout does not change, the prior transition's Event was sent by this process, or
 * it is past the recovery window. Pure.
 */
export function eventBeforeReplacing(
  release: Release,
  next: Rollout | undefined,
  sent: ReadonlyMap<string, string> | undefined,
  now: number,
): ReleaseEvent | undefined {
  const prior = release.status?.rollout;
  if (sent === undefined || prior === undefined || next === undefined) return undefined;
  if (rolloutKey(prior) === rolloutKey(next)) return undefined;
  if (sent.get(release.metadata.uid ?? '') === rolloutKey(prior)) return undefined;
  return recoveredRolloutEvent(release, prior, release.status?.lastHealthy, now);
}

/** Events for a reconcile: the Ready condition when it changed, and the sync's notes. Pure. */
export function eventsFor(
  prior: readonly Condition[] | undefined,
  next: readonly Condition[] | undefined,
  notes: readonly string[],
): ReleaseEvent[] {
  const out: ReleaseEvent[] = [];
  const before = prior?.find((c) => c.type === 'Ready');
  const after = next?.find((c) => c.type === 'Ready');
  if (
    after !== undefined &&
    (before?.status !== after.status || before.reason !== after.reason || before.message !== after.message)
  ) {
    out.push({
      type: after.status === 'False' ? 'Warning' : 'Normal',
      reason: after.reason,
      message: after.message,
    });
  }
  // The verification's outcome (docs/design.md#verification): an Event when it passes, fails or holds for
  // a person — not for each measurement, nor for the waiting and measuring in between.
  const vBefore = prior?.find((c) => c.type === 'Verified');
  const vAfter = next?.find((c) => c.type === 'Verified');
  if (
    vAfter !== undefined &&
    vAfter.status !== 'Unknown' &&
    (vBefore?.status !== vAfter.status || vBefore.reason !== vAfter.reason)
  ) {
    out.push({
      type: vAfter.status === 'False' ? 'Warning' : 'Normal',
      reason: vAfter.reason,
      message: vAfter.message,
    });
  }
  for (const n of notes) out.push({ type: 'Normal', reason: 'Sync', message: n });
  const seen = new Set<string>();
  return out.filter((e) => {
    const k = `${e.type}\0${e.reason}\0${e.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Warning Events for the warnings the prior status.message did not carry yet (one Event each). Pure. */
export function newWarnings(
  priorMessage: string | undefined,
  warnings: readonly ReleaseWarning[],
): ReleaseEvent[] {
  return warnings
    .filter((w) => !(priorMessage ?? '').includes(w.message))
    .map((w) => ({ type: 'Warning', reason: w.reason, message: w.message }));
}

/** The core/v1 Event object of one ReleaseEvent about a Release. Pure. */
export function eventObject(release: Release, e: ReleaseEvent, now: number): Record<string, unknown> {
  const ts = new Date(now).toISOString();
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata:
      e.name === undefined
        ? { generateName: `${release.metadata.name}.`, namespace: release.metadata.namespace }
        : { name: e.name, namespace: release.metadata.namespace },
    involvedObject: {
      apiVersion: release.apiVersion,
      kind: release.kind,
      name: release.metadata.name,
      namespace: release.metadata.namespace,
      uid: release.metadata.uid,
      resourceVersion: release.metadata.resourceVersion,
    },
    type: e.type,
    reason: e.reason,
    message: e.message.slice(0, 1024),
    source: { component: 'convoy-controller' },
    reportingComponent: 'convoy-controller',
    reportingInstance: 'convoy-controller-manager',
    firstTimestamp: ts,
    lastTimestamp: ts,
    count: 1,
  };
}

/**
 * Hands the Events to the recorder (src/kube/events.ts: sent in the background, retried with backoff,
 * drops counted); without one (tests that build their own deps), sends them now and logs a failure.
 */
export function recordEvents(
  deps: Pick<ReleaseDeps, 'events' | 'local' | 'log' | 'now'>,
  release: Release,
  events: readonly ReleaseEvent[],
  now: number = deps.now(),
  onSent?: (event: ReleaseEvent) => void,
): void {
  const recorder = deps.events;
  if (recorder !== undefined) {
    for (const e of events) recorder.record(eventObject(release, e, now), () => onSent?.(e));
    return;
  }
  void (async () => {
    for (const e of events) {
      await deps.local.create(eventObject(release, e, now) as never);
      onSent?.(e);
    }
  })().catch((err: unknown) => deps.log.warn({ err: String(err) }, 'could not record events'));
}

/**
 * Before a status write replaces a persisted rollout transition whose Event the API server is not known
 * to hold, that Event is created now (see eventBeforeReplacing), under its fixed name.
 */
export async function announceReplaced(
  release: Release,
  status: ControllerStatus,
  deps: Pick<ReleaseDeps, 'local' | 'memory'>,
  now: number,
): Promise<void> {
  const replaced = eventBeforeReplacing(release, status.rollout, deps.memory.sentRollouts, now);
  if (replaced === undefined || release.status?.rollout === undefined) return;
  await createNamedEvent(deps, eventObject(release, replaced, now));
  const key = rolloutKey(release.status.rollout);
  deps.memory.eventedRollouts.set(release.metadata.uid ?? '', key);
  deps.memory.sentRollouts.set(release.metadata.uid ?? '', key);
}

/**
 * What a written status changed, said once: the rollout transition as a log line and an Event, and the
 * Events of new conditions, the sync's notes and new warnings. A rollout Event counts as announced once
 * the API server holds it, not when queued: a kill -9 with it still queued, after the next transition is
 * written, must leave it to eventBeforeReplacing.
 */
export function announce(
  release: Release,
  status: ControllerStatus,
  outcome: Outcome,
  deps: Pick<ReleaseDeps, 'events' | 'local' | 'log' | 'now' | 'memory'>,
  now: number,
): void {
  const transition = rolloutTransition(release.status?.rollout, status.rollout, status.lastHealthy);
  if (transition !== undefined) {
    const { message: _, eventType: __, eventReason: ___, ...fields } = transition;
    deps.log.info(fields, transition.message);
  }
  const sentKey = status.rollout === undefined ? undefined : rolloutKey(status.rollout);
  const sentName = status.rollout === undefined ? undefined : rolloutEventName(release, status.rollout);
  const events = [
    ...rolloutEvents(release, status, transition, deps.memory.eventedRollouts, now),
    ...eventsFor(release.status?.conditions, status.conditions, outcome.notes),
    ...newWarnings(release.status?.message, outcome.warnings ?? []),
  ];
  recordEvents(deps, release, events, now, (e) => {
    if (sentKey !== undefined && e.name !== undefined && e.name === sentName)
      deps.memory.sentRollouts.set(release.metadata.uid ?? '', sentKey);
  });
  if (outcome.notes.length > 0) deps.log.info({ notes: outcome.notes }, 'sync notes');
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

/** Creates an Event with a fixed name now (bounded by the client's timeout); a 409 means it is recorded. */
async function createNamedEvent(deps: Pick<ReleaseDeps, 'local'>, event: Record<string, unknown>) {
  try {
    await deps.local.create(event as never);
  } catch (err) {
    if (!isConflict(err)) throw err;
  }
}
