// syncFailHooks: whether this reconcile arms the SyncFail hooks of render R. They run when a sync of R
// fails and when R's rollout is Failed — once per render and forced sync (the rollout stays Failed, and a
// sync may fail the same way at every reconcile: neither re-runs them), never on RolledBack
// (applyLastHealthy runs no hooks).
import type { InventoryHook, ReadyReason } from '../../../../api/types.ts';
import { assertNever } from '../../../../lib/assert-never.ts';
import type { Obj } from '../../../../render/types.ts';
import { type HookPhaseDecision, planHookPhase } from './plan.ts';

/** Failures of a sync of R that was under way: something of R was checked, run or applied. */
export const SYNC_FAILURE_REASONS: ReadonlySet<ReadyReason> = new Set<ReadyReason>([
  'DryRunFailed',
  'ApplyFailed',
  'HookFailed',
  'PruneFailed',
]);

export type SyncFailTrigger =
  /** stageSync of R failed with this Ready reason. */
  | { readonly kind: 'syncFailed'; readonly reason: ReadyReason }
  /** The rollout of R is Failed (the plan's or the wave gate's rollout, for R). */
  | { readonly kind: 'rolloutFailed' }
  | { readonly kind: 'rolledBack' }
  | { readonly kind: 'none' };

export interface SyncFailInput {
  readonly trigger: SyncFailTrigger;
  readonly renderRef: string;
  /** render.hooks of R. */
  readonly hooks: readonly Obj[];
  readonly entries: readonly InventoryHook[];
  /** As for planHookPhase: a forced sync makes R's earlier SyncFail run stale. */
  readonly forcedAt?: string | undefined;
  readonly now: number;
}

/** The parts of a reconcile's outcome (outcome.ts) that decide the trigger. */
export interface SyncFailOutcome {
  readonly result: { readonly kind: string; readonly error?: { readonly reason: ReadyReason } };
  readonly rollout:
    | { readonly kind: 'none' }
    | { readonly kind: 'rollout'; readonly rollout: { readonly state: string; readonly renderRef: string } };
}

/**
 * The trigger of a reconcile of R whose stageRender succeeded: a failed result can then only be stageSync
 * of R failing. A rollback wins over everything (applyLastHealthy runs no hooks).
 */
export function syncFailTrigger(outcome: SyncFailOutcome, renderRef: string): SyncFailTrigger {
  const rollout = outcome.rollout.kind === 'rollout' ? outcome.rollout.rollout : undefined;
  const rollback = outcome.result.kind === 'rolledBack' || outcome.result.kind === 'rollbackHeld';
  if (rollback || rollout?.state === 'RolledBack') return { kind: 'rolledBack' };
  if (outcome.result.kind === 'failed' && outcome.result.error !== undefined)
    return { kind: 'syncFailed', reason: outcome.result.error.reason };
  if (rollout?.state === 'Failed' && rollout.renderRef === renderRef) return { kind: 'rolloutFailed' };
  return { kind: 'none' };
}

export function syncFailFires(trigger: SyncFailTrigger): boolean {
  switch (trigger.kind) {
    case 'syncFailed':
      return SYNC_FAILURE_REASONS.has(trigger.reason);
    case 'rolloutFailed':
      return true;
    case 'rolledBack':
    case 'none':
      return false;
    default:
      return assertNever(trigger);
  }
}

/**
 * 'none' when nothing fires or R has no SyncFail hooks; else planHookPhase's decision for SyncFail:
 * 'arm' the first time, then their progress. SyncFail never holds nor fails anything: the caller arms,
 * deletes the decision's cleanup, and reports the original failure.
 */
export function syncFailHooks(input: SyncFailInput): HookPhaseDecision {
  if (!syncFailFires(input.trigger)) return { kind: 'none' };
  return planHookPhase({
    phase: 'SyncFail',
    hooks: input.hooks,
    renderRef: input.renderRef,
    entries: input.entries,
    forcedAt: input.forcedAt,
    now: input.now,
  });
}
