// planRollout: the rollout transition of one reconcile (docs/design.md#rollout-rules, first matching rule),
// without side effects. It returns the next status.rollout and the action reconcile executes: apply the source's render
// R, or re-apply the last healthy render.
import { parseDuration } from '../../../../api/duration.ts';
import { assertNever } from '../../../../lib/assert-never.ts';
import { RolloutReason, rollbackBlocker } from './reasons.ts';
import { elapsedSince, formatDuration, formatTime } from './time.ts';
import type { FailurePolicy, RenderId, RenderStamp, Rollout, RolloutState } from './types.ts';
import { shortRef } from './types.ts';
import { type Verdict, VerdictReason } from './verdict.ts';

export type RolloutAction = { readonly kind: 'applySource' } | { readonly kind: 'applyLastHealthy' };

export interface Transition {
  readonly from: RolloutState | 'None';
  readonly to: RolloutState;
  readonly reason: RolloutReason;
}

export interface PlanInput {
  /** R, the render of this reconcile. */
  readonly render: RenderId;
  /** The persisted status.rollout. */
  readonly prior: Rollout | undefined;
  /** verdict(R). */
  readonly verdict: Verdict;
  readonly now: number;
  /** spec.failurePolicy; absent: no rollout at all. */
  readonly failurePolicy: FailurePolicy | undefined;
  readonly lastHealthy: RenderStamp | undefined;
  /** The force-sync-at annotation is newer than status.lastHandledForceSyncAt. */
  readonly forcedSyncPending: boolean;
  /** R is already live (applied by an earlier sync or rollback), so a rollout opened now starts its clock. */
  readonly renderApplied: boolean;
  /**
   * The previous reconcile applied a pinned render and the pin is gone: R's rollout re-opens with a fresh
   * clock even when the prior rollout is of R (docs/design.md#rollout-rules), since R must be applied and judged again.
   */
  readonly unpinned?: boolean;
}

/** The rules of docs/design.md#rollout-rules, in the order they are tried; `pinned` is reconcile's. */
export type RolloutRule =
  | 'noFailurePolicy'
  | 'pinned'
  | 'forcedRetry'
  | 'newRender'
  | 'holdRollback'
  | 'settled'
  | 'healthy'
  | 'rollBack'
  | 'fail'
  | 'wait';

export interface Plan {
  readonly next: Rollout | undefined;
  readonly action: RolloutAction;
  readonly transition?: Transition;
  /** The rule that matched (docs/design.md#rollout-rules). For logs and tests. */
  readonly rule: RolloutRule;
}

const applySource: RolloutAction = { kind: 'applySource' };
const applyLastHealthy: RolloutAction = { kind: 'applyLastHealthy' };

/** Opens the rollout clock when R is actually applied; a rollout held by a gate has none yet. */
export function startRolloutClock(rollout: Rollout, now: number): Rollout {
  if (rollout.state !== 'Progressing' || rollout.startedAt !== undefined) return rollout;
  return { ...rollout, startedAt: formatTime(now) };
}

function progressing(input: PlanInput, reason: RolloutReason, message: string): Rollout {
  const { render, now, renderApplied } = input;
  const base: Rollout = {
    state: 'Progressing',
    renderRef: render.renderRef,
    revision: render.revision,
    reason,
    message,
  };
  return renderApplied ? startRolloutClock(base, now) : base;
}

export function planRollout(input: PlanInput): Plan {
  const { render, prior, verdict, now, failurePolicy: policy, lastHealthy } = input;
  if (policy === undefined) return { next: undefined, action: applySource, rule: 'noFailurePolicy' };
  const R = render.renderRef;
  const short = shortRef(R);

  // forcedRetry
  if (
    input.forcedSyncPending &&
    prior !== undefined &&
    prior.renderRef === R &&
    (prior.state === 'Failed' || prior.state === 'RolledBack')
  ) {
    const next = progressing(
      input,
      RolloutReason.ForcedRetry,
      `forced sync: retrying ${short} once after ${prior.state}`,
    );
    return {
      next,
      action: applySource,
      transition: { from: prior.state, to: 'Progressing', reason: RolloutReason.ForcedRetry },
      rule: 'forcedRetry',
    };
  }

  // newRender: a new render always starts as Progressing; its own verdict counts only from the next reconcile.
  // Removing a pin re-opens the source's render the same way, with a fresh clock.
  if (prior === undefined || prior.renderRef !== R || input.unpinned === true) {
    const reopened = prior?.renderRef === R;
    const reason = reopened ? RolloutReason.Unpinned : RolloutReason.NewRender;
    const replaces = prior === undefined ? '' : `; replaces ${shortRef(prior.renderRef)} (${prior.state})`;
    const next = progressing(
      input,
      reason,
      reopened
        ? `pin removed: rolling out ${short} (revision ${render.revision}) again`
        : `rolling out ${short} (revision ${render.revision})${replaces}`,
    );
    return {
      next,
      action: applySource,
      transition: { from: prior?.state ?? 'None', to: 'Progressing', reason },
      rule: 'newRender',
    };
  }

  switch (prior.state) {
    case 'RolledBack': // holdRollback: hold the last healthy render until a new render or a forced sync.
      return { next: prior, action: applyLastHealthy, rule: 'holdRollback' };
    case 'Succeeded':
    case 'Failed': // settled
      return { next: prior, action: applySource, rule: 'settled' };
    case 'Progressing':
      return planProgressing(input, prior, policy, lastHealthy, verdict, now);
    default:
      return assertNever(prior.state);
  }
}

function planProgressing(
  input: PlanInput,
  prior: Rollout,
  policy: FailurePolicy,
  lastHealthy: RenderStamp | undefined,
  verdict: Verdict,
  now: number,
): Plan {
  const short = shortRef(prior.renderRef);
  // A Progressing rollout whose render is already live but whose clock was never written (a crash between
  // apply and status write) starts it now rather than never.
  const current = input.renderApplied ? startRolloutClock(prior, now) : prior;
  const elapsed = elapsedSince(current.startedAt, now);

  // healthy
  if (verdict.kind === 'Healthy') {
    const after = elapsed === undefined ? '' : ` after ${formatDuration(elapsed)}`;
    return {
      next: finished(current, 'Succeeded', RolloutReason.Healthy, `${short} healthy${after}`, now),
      action: applySource,
      transition: { from: 'Progressing', to: 'Succeeded', reason: RolloutReason.Healthy },
      rule: 'healthy',
    };
  }

  // rollBack and fail: elapsed is 0 until the clock starts, so a render held by a gate cannot expire. A
  // failed verification is final for R at once: the deadline never waits on it (docs/design.md#verification).
  const deadline = parseDuration(policy.deadline);
  const verificationFailed =
    verdict.kind === 'Unhealthy' && verdict.reason === VerdictReason.VerificationFailed;
  const expired = elapsed !== undefined && elapsed >= deadline;
  if (verdict.kind === 'Unhealthy' && (verificationFailed || expired)) {
    const reason = verificationFailed ? RolloutReason.VerificationFailed : RolloutReason.DeadlineExceeded;
    const why = verificationFailed
      ? `${short} failed its verification: ${verdict.message}`
      : `${short} unhealthy ${formatDuration(elapsed ?? 0)} after start (deadline ${policy.deadline}): ${verdict.message}`;
    const blocker = rollbackBlocker(policy, lastHealthy, prior.renderRef);
    if (blocker === undefined && lastHealthy !== undefined) {
      const to = `${shortRef(lastHealthy.renderRef)} (revision ${lastHealthy.revision})`;
      return {
        next: finished(current, 'RolledBack', reason, `${why}; rolled back to ${to}`, now),
        action: applyLastHealthy,
        transition: { from: 'Progressing', to: 'RolledBack', reason },
        rule: 'rollBack',
      };
    }
    return {
      next: finished(current, 'Failed', reason, `${why}; no rollback: ${blocker}`, now),
      action: applySource,
      transition: { from: 'Progressing', to: 'Failed', reason },
      rule: 'fail',
    };
  }

  // wait
  return { next: current, action: applySource, rule: 'wait' };
}

function finished(
  r: Rollout,
  state: RolloutState,
  reason: RolloutReason,
  message: string,
  now: number,
): Rollout {
  return { ...r, state, reason, message, finishedAt: formatTime(now) };
}
