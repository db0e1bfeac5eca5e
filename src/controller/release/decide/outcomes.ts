// The Outcome each way a reconcile can end (docs/design.md#reading-one-reconcile), built from what a
// step returned, and the settling every Outcome gets before status assembly: completed waves, the
// verdicts read from the pass's one snapshot, the warnings. Pure: reconcile.ts calls these between steps.
import type { Release } from '../../../api/types.ts';
import { assertNever } from '../../../lib/assert-never.ts';
import type { Render } from '../../../render/types.ts';
import type { ReleaseError } from '../errors.ts';
import {
  type LastHealthyResult,
  noAttempt,
  noRollout,
  type Outcome,
  type RenderSummary,
} from '../outcome.ts';
import { type Judged, type Observed, verdictOfRecorded } from './pass.ts';
import {
  completeWaves,
  formatTime,
  type OutcomeRollout,
  type Plan,
  type Rollout,
  startRolloutClock,
} from './rollout/index.ts';
import type { GateDecision } from './sync/index.ts';
import type { SyncResult } from './sync/plan.ts';
import { releaseWarnings } from './warnings.ts';

export const rolloutOf = (r: Rollout | undefined): OutcomeRollout =>
  r === undefined ? noRollout : { kind: 'rollout', rollout: r };

/** A gate held (suspend before the render, the manual mode or the cluster wave after it): nothing applied. */
export function heldOutcome(
  gate: Extract<GateDecision, { kind: 'held' }>,
  rollout: OutcomeRollout,
  render?: RenderSummary,
): Outcome {
  const result = { kind: 'held', reason: gate.reason, message: gate.message } as const;
  return { result, attempt: noAttempt, rollout, ...(render === undefined ? {} : { render }), notes: [] };
}

/** stageRender failed: no attempt and no rollout (status keeps the rollout it has, docs/design.md#status-assembly). */
export function renderFailedOutcome(error: ReleaseError): Outcome {
  return { result: { kind: 'failed', error }, attempt: noAttempt, rollout: noRollout, notes: [] };
}

/** What stageSync ended in for R, with the plan's rollout (its clock started once R was applied). */
export function syncOutcome(
  sync: Exclude<SyncResult, { kind: 'rollback' }>,
  plan: Plan,
  R: RenderSummary,
  now: number,
): Outcome {
  const planned = rolloutOf(plan.next);
  const started = rolloutOf(plan.next === undefined ? undefined : startRolloutClock(plan.next, now));
  switch (sync.kind) {
    case 'upToDate':
      return { result: { kind: 'synced', ...R }, attempt: noAttempt, rollout: planned, render: R, notes: [] };
    case 'synced':
      return {
        result: { kind: 'synced', ...R },
        attempt: { kind: 'attempt', ...sync.attempt },
        rollout: started,
        render: R,
        waves: sync.waves,
        applied: R,
        notes: sync.notes,
      };
    case 'held':
      return {
        result: { kind: 'held', reason: sync.reason, message: sync.message },
        attempt: { kind: 'attempt', ...sync.attempt },
        rollout: sync.rollout === undefined ? started : rolloutOf(sync.rollout),
        render: R,
        waves: sync.waves,
        notes: sync.notes,
      };
    case 'failed':
      // The clock starts when the sync of R begins, a failing one too: its deadline must fire.
      return {
        result: { kind: 'failed', error: sync.error },
        attempt: sync.attempt === undefined ? noAttempt : { kind: 'attempt', ...sync.attempt },
        rollout: started,
        render: R,
        ...(sync.waves === undefined ? {} : { waves: sync.waves }),
        notes: sync.notes,
      };
    default:
      return assertNever(sync);
  }
}

/**
 * applyLastHealthy's result as an Outcome. Applied: the last healthy render is the attempt. Not applied:
 * the rollback holds — R is not applied, no error is returned, so the interval (not the error backoff)
 * brings the next attempt (docs/design.md#apply-last-healthy).
 */
export function rollbackOutcome(r: LastHealthyResult, R: RenderSummary, rollout: OutcomeRollout): Outcome {
  if (r.applied) {
    const { renderRef, revision } = r.attempt;
    return {
      result: { kind: 'rolledBack', renderRef, revision, message: r.message },
      attempt: { kind: 'attempt', ...r.attempt },
      rollout,
      render: R,
      notes: r.notes ?? [],
    };
  }
  return {
    result: { kind: 'rollbackHeld', renderRef: R.renderRef, revision: R.revision, message: r.message },
    attempt: noAttempt,
    rollout,
    render: R,
    notes: [r.message],
  };
}

/** The wave gate's rollback: applyLastHealthy's Outcome, with the waves and notes of the sync that led to it. */
export function afterWaveRollback(out: Outcome, sync: Extract<SyncResult, { kind: 'rollback' }>): Outcome {
  return { ...out, waves: sync.waves, notes: [...sync.notes, ...out.notes] };
}

export function withNotes(out: Outcome, notes: readonly string[]): Outcome {
  return notes.length === 0 ? out : { ...out, notes: [...out.notes, ...notes] };
}

/**
 * What status assembly reads besides the step's result, all from the pass's one snapshot:
 * status.waves[].completedAt for the waves the observer found Healthy, verdict(R) as planRollout read
 * it, the verdict of the attempt's render (this pass's attempt, else status.lastAttempted), and the
 * releaseWarnings of the spec and render.
 */
export function settleOutcome(
  release: Release,
  outcome: Outcome,
  observed: Observed,
  ran: { readonly judged?: Judged; readonly render?: Render },
  now: number,
): Outcome {
  let out = outcome;
  const waves = out.waves ?? release.status?.waves ?? [];
  const done = completeWaves(waves, observed.inventory?.entries ?? [], formatTime(now));
  if (done !== waves) out = { ...out, waves: done };
  const planned = ran.judged;
  if (planned !== undefined) out = { ...out, planned };
  const warnings = releaseWarnings(release.spec, ran.render);
  if (warnings.length > 0) out = { ...out, warnings };
  const ref =
    out.attempt.kind === 'attempt' ? out.attempt.renderRef : release.status?.lastAttempted?.renderRef;
  if (ref === undefined) return out;
  // The attempt's render is R: status assembly reads the very verdict planRollout read.
  if (planned !== undefined && planned.renderRef === ref) return { ...out, health: planned };
  const v = verdictOfRecorded(ref, observed);
  return v === undefined ? out : { ...out, health: { renderRef: ref, verdict: v } };
}
