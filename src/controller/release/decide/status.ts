// The Release status fields the release controller writes (manager convoy-controller) after one
// reconcile: assembleStatus (rollout/) for the rollout fields, plus Ready/Stalled from conditionsFor,
// observedGeneration, currentRender, waves and history with each attempt's trigger. Pure; the same inputs on a steady Release give
// a status equal to the one written before, so the status writer sends nothing.

import { ANNOTATION_FORCE_SYNC_AT } from '../../../api/constants.ts';
import { shortRevision } from '../../../api/revision.ts';
import type { AttemptTrigger, Condition, Release, ReleaseStatus } from '../../../api/types.ts';
import { DEFAULT_HISTORY_LIMIT } from '../../../store/keep.ts';
import type { Outcome } from '../outcome.ts';
import { assembleStatus, formatTime, setCondition } from './rollout/index.ts';
import { statusMessage } from './status-message.ts';
import { conditionsFor, forcedSyncPending } from './sync/index.ts';
import { approvalOf, attemptTrigger, forcedBy, requestedSync } from './trigger.ts';
import { CONDITION_VERIFIED, verifiedCondition } from './verified-condition.ts';

/** Condition types this controller owns; the observer's (Healthy, Drifted) are never sent. */
export const CONTROLLER_CONDITIONS: readonly string[] = [
  'Ready',
  'Stalled',
  'RolloutSucceeded',
  CONDITION_VERIFIED,
];

export type ControllerStatus = Pick<
  ReleaseStatus,
  | 'observedGeneration'
  | 'conditions'
  | 'currentRender'
  | 'lastAttempted'
  | 'lastSuccessful'
  | 'lastHealthy'
  | 'rollout'
  | 'waves'
  | 'history'
  | 'lastHandledForceSyncAt'
  | 'lastHandledSyncRequestAt'
  | 'revision'
  | 'message'
>;

export function releaseStatus(release: Release, outcome: Outcome, now: number): ControllerStatus {
  const prior = release.status ?? {};
  const generation = release.metadata.generation ?? 0;
  const mine = (prior.conditions ?? []).filter((c) => CONTROLLER_CONDITIONS.includes(c.type));
  const forced = forcedSyncPending(release.metadata.annotations, prior);
  const rolled = assembleStatus({
    prior: defined({
      lastAttempted: prior.lastAttempted,
      lastSuccessful: prior.lastSuccessful,
      lastHealthy: prior.lastHealthy,
      rollout: prior.rollout,
      conditions: mine,
      lastHandledForceSyncAt: prior.lastHandledForceSyncAt,
    }),
    outcome: { attempt: outcome.attempt, rollout: outcome.rollout },
    health: outcome.health,
    planned: outcome.planned,
    failurePolicySet: release.spec.failurePolicy !== undefined,
    forcedSyncPendingAt: forced ? release.metadata.annotations?.[ANNOTATION_FORCE_SYNC_AT] : undefined,
    generation,
    now,
  });
  const { ready, stalled } = conditionsFor(outcome.result);
  let conditions: readonly Condition[] = rolled.conditions ?? [];
  conditions = setCondition(conditions, { ...ready, observedGeneration: generation }, now);
  conditions = setCondition(conditions, { ...stalled, observedGeneration: generation }, now);
  if (release.spec.verification === undefined) {
    conditions = conditions.filter((c) => c.type !== CONDITION_VERIFIED);
  } else {
    const verified = verifiedCondition(outcome.planned, rolled.rollout?.renderRef, generation);
    if (verified !== undefined) conditions = setCondition(conditions, verified, now);
  }

  const requested = requestedSync(release.metadata.annotations, prior.lastHandledSyncRequestAt);
  const rolledBack = outcome.result.kind === 'rolledBack';
  const triggerOf = (attempt: { readonly renderRef: string; readonly revision: string }): AttemptTrigger =>
    attemptTrigger({
      rollback: rolledBack ? { reason: rolled.rollout?.reason } : undefined,
      pinned: release.spec.pin?.renderRef === attempt.renderRef,
      forced: forcedBy(release.metadata.annotations, forced),
      approved: approvalOf(release.metadata.annotations, release.spec.syncPolicy?.mode, attempt.renderRef),
      requested,
      previousRevision: (prior.history?.at(-1) ?? prior.lastAttempted)?.revision,
      revision: attempt.revision,
      generation,
      observedGeneration: prior.observedGeneration,
    });
  // The trigger is decided in the pass that first records an attempt of a render, then kept with it.
  let lastAttempted = rolled.lastAttempted;
  if (lastAttempted !== undefined && lastAttempted !== prior.lastAttempted) {
    const same = prior.lastAttempted?.renderRef === lastAttempted.renderRef;
    const trigger = same ? prior.lastAttempted?.trigger : triggerOf(lastAttempted);
    lastAttempted = defined({ ...lastAttempted, trigger });
  }

  let history = prior.history ?? [];
  // A render whose attempt failed before it was applied (its dry run, its store, its PreSync hooks): an
  // entry of its own, once, so the record keeps every render attempted (docs/design.md#history-and-triggers).
  const notApplied = failedUnapplied(outcome, history);
  if (notApplied !== undefined) {
    const trigger =
      lastAttempted?.renderRef === notApplied.renderRef ? lastAttempted.trigger : triggerOf(notApplied);
    history = [
      ...history,
      defined({
        renderRef: notApplied.renderRef,
        revision: notApplied.revision,
        attemptedAt: formatTime(now),
        result: 'Failed' as const,
        reason: notApplied.reason,
        trigger,
      }),
    ];
  }
  // A render rolled back before its sync completed (the wave gate, a deadline while waves wait) has no
  // entry yet: it gets one, with the trigger its first attempt recorded, so the record keeps it.
  const back = rolledBack ? rolled.rollout : undefined;
  const since = Date.parse(back?.startedAt ?? '');
  if (
    back?.state === 'RolledBack' &&
    back.revision !== undefined &&
    back.renderRef !== lastAttempted?.renderRef &&
    !history.some(
      (h) =>
        h.renderRef === back.renderRef &&
        (Number.isNaN(since) || Date.parse(h.appliedAt ?? h.attemptedAt ?? '') >= since),
    )
  ) {
    const trigger =
      prior.lastAttempted?.renderRef === back.renderRef ? prior.lastAttempted.trigger : undefined;
    history = [
      ...history,
      defined({
        renderRef: back.renderRef,
        revision: back.revision,
        appliedAt: back.startedAt ?? formatTime(now),
        trigger,
      }),
    ];
  }
  // A render newly applied, or the last healthy one a rollback re-applied: an entry with its trigger (after
  // its own failed attempts, if any: those stay as they were).
  const applied = outcome.applied ?? (rolledBack ? lastAttempted : undefined);
  const newest = history[history.length - 1];
  if (applied !== undefined && (newest?.renderRef !== applied.renderRef || newest.appliedAt === undefined)) {
    const trigger = lastAttempted?.renderRef === applied.renderRef ? lastAttempted.trigger : undefined;
    history = [
      ...history,
      defined({
        renderRef: applied.renderRef,
        revision: applied.revision,
        appliedAt: formatTime(now),
        trigger,
      }),
    ];
  }
  history = withRolloutResult(history, rolled.rollout);
  const limit = release.spec.historyLimit ?? DEFAULT_HISTORY_LIMIT;
  if (history.length > limit) history = history.slice(history.length - limit);

  const currentRender = outcome.render ?? prior.currentRender;
  const revision = currentRender?.revision ?? lastAttempted?.revision;
  const message = statusMessage({
    conditions,
    rollout: rolled.rollout,
    warnings: (outcome.warnings ?? []).map((w) => w.message),
  });
  return defined({
    observedGeneration: generation,
    conditions: [...conditions],
    currentRender,
    lastAttempted,
    lastSuccessful: rolled.lastSuccessful,
    lastHealthy: rolled.lastHealthy,
    rollout: rolled.rollout,
    waves: outcome.waves === undefined ? prior.waves : [...outcome.waves],
    history: [...history],
    lastHandledForceSyncAt: rolled.lastHandledForceSyncAt,
    lastHandledSyncRequestAt: requested?.at ?? prior.lastHandledSyncRequestAt,
    revision: revision === undefined ? undefined : shortRevision(revision),
    message: message === '' ? undefined : message,
  });
}

/**
 * R when this reconcile's attempt of it failed with nothing of it applied, and the newest history entry is
 * not R already (a retry that fails again adds nothing; nor does a failed re-sync of the render running).
 */
function failedUnapplied(
  outcome: Outcome,
  history: NonNullable<ReleaseStatus['history']>,
): { readonly renderRef: string; readonly revision: string; readonly reason: string } | undefined {
  if (outcome.result.kind !== 'failed' || outcome.render === undefined || outcome.applied !== undefined)
    return undefined;
  if (outcome.attempt.kind === 'attempt' && outcome.attempt.applied) return undefined;
  if (history[history.length - 1]?.renderRef === outcome.render.renderRef) return undefined;
  return { ...outcome.render, reason: outcome.result.error.reason };
}

/**
 * The ended rollout's state on the newest history entry of its render (what `convoy history` shows
 * for failed and rolled-back renders after the next rollout replaced status.rollout). Set once.
 */
function withRolloutResult(
  history: NonNullable<ReleaseStatus['history']>,
  rollout: ReleaseStatus['rollout'],
): NonNullable<ReleaseStatus['history']> {
  if (rollout === undefined || rollout.state === 'Progressing') return history;
  const i = history.findLastIndex((h) => h.renderRef === rollout.renderRef);
  const entry = history[i];
  if (entry === undefined || entry.result !== undefined) return history;
  const marked = { ...entry, result: rollout.state, ...(rollout.reason ? { reason: rollout.reason } : {}) };
  return history.map((h, j) => (j === i ? marked : h));
}

/** Without undefined fields and empty lists: "absent" has one shape, so a steady status compares equal. */
function defined<T extends object>(s: T): T {
  return Object.fromEntries(
    Object.entries(s).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)),
  ) as T;
}
