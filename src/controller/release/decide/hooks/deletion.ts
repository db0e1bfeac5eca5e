// deletionPlan: the next step of finalizing a deleted Release — PreDelete hooks, prune, PostDelete hooks,
// then delete the inventory and render blobs and remove the finalizer. Each hook phase waits for the
// observer's terminal state (its /sync on a finished hook brings the next reconcile). A failed delete hook
// blocks the deletion, as in Argo CD: the hook is there because something must happen before (or after)
// the objects go; a forced sync runs the failed phase again.
import { FINALIZER } from '../../../../api/constants.ts';
import type { InventoryHook } from '../../../../api/types.ts';
import { assertNever } from '../../../../lib/assert-never.ts';
import type { Obj } from '../../../../render/types.ts';
import { type HookWorkloadRef, recordedWorkloads } from './cleanup.ts';
import { hookDefs } from './defs.ts';
import { type HookArming, type HookPhaseDecision, planHookPhase } from './plan.ts';

export type DeletePhase = 'PreDelete' | 'PostDelete';

export interface DeletionPlanInput {
  /**
   * The render whose delete hooks run: the last one applied (lastSuccessful, else lastAttempted) read from
   * the render store — not the source, which may be broken or gone. undefined: no render known, no hooks.
   */
  readonly render: { readonly renderRef: string; readonly hooks: readonly Obj[] } | undefined;
  readonly hookEntries: readonly InventoryHook[];
  /** How many object entries the inventory still holds (0 or no inventory: nothing left to prune). */
  readonly objectEntries: number;
  readonly deletionPolicy: 'Delete' | 'Orphan';
  /** As for planHookPhase; here it re-runs only a failed phase. */
  readonly forcedAt?: string | undefined;
  readonly now: number;
}

export type DeletionStep =
  /** Create the workloads and record the entries, then wait for the observer. */
  | { readonly kind: 'armHooks'; readonly phase: DeletePhase; readonly hooks: readonly HookArming[] }
  | {
      readonly kind: 'waitHooks';
      readonly phase: DeletePhase;
      readonly running: readonly string[];
      readonly cleanup: readonly HookWorkloadRef[];
    }
  /** Stop: Ready=False reason HookFailed with `message`; only a forced sync (or a person) moves it on. */
  | {
      readonly kind: 'blocked';
      readonly phase: DeletePhase;
      readonly hook: string;
      readonly message: string;
      readonly cleanup: readonly HookWorkloadRef[];
    }
  /** pruneSet with `deletion: {deletionPolicy}`, delete, drop every entry; then plan again. */
  | { readonly kind: 'prune'; readonly cleanup: readonly HookWorkloadRef[] }
  /** Delete `cleanup`, the inventory and the render blobs, then remove the finalizer. */
  | { readonly kind: 'finalize'; readonly cleanup: readonly HookWorkloadRef[] };

/**
 * Call it, carry out the step, and call it again with the new state until it returns waitHooks, blocked
 * or finalize (armHooks is followed by waitHooks on the next call, once the entries are recorded).
 */
export function deletionPlan(input: DeletionPlanInput): DeletionStep {
  const cleanup: HookWorkloadRef[] = [];

  const pre = phaseStep('PreDelete', input, cleanup);
  if (pre !== undefined) return pre;

  if (input.objectEntries > 0) return { kind: 'prune', cleanup };

  const post = phaseStep('PostDelete', input, cleanup);
  if (post !== undefined) return post;

  // Hook workloads are convoy's run artefacts, not desired state: with Delete they all go with the
  // Release; with Orphan the user asked to leave the cluster as it is, so only the policies apply.
  if (input.deletionPolicy === 'Delete') {
    const hooks = input.render === undefined ? [] : hookDefs(input.render.hooks);
    cleanup.push(...recordedWorkloads(input.hookEntries, hooks));
  }
  return { kind: 'finalize', cleanup: dedupe(cleanup) };
}

/** The step a phase demands, or undefined when it is done (succeeded, or has no hooks). */
function phaseStep(
  phase: DeletePhase,
  input: DeletionPlanInput,
  cleanup: HookWorkloadRef[],
): DeletionStep | undefined {
  if (input.render === undefined) return undefined;
  const plan = (forcedAt: string | undefined): HookPhaseDecision =>
    planHookPhase({
      phase,
      hooks: input.render?.hooks ?? [],
      renderRef: input.render?.renderRef ?? '',
      entries: input.hookEntries,
      forcedAt,
      now: input.now,
    });
  let d = plan(undefined);
  // A forced sync re-runs a failed phase only: re-running a phase that succeeded would repeat its effects.
  if (d.kind === 'failed' && input.forcedAt !== undefined) {
    const again = plan(input.forcedAt);
    if (again.kind === 'arm') d = again;
  }
  switch (d.kind) {
    case 'none':
      return undefined;
    case 'succeeded':
      cleanup.push(...d.cleanup);
      return undefined;
    case 'arm':
      return { kind: 'armHooks', phase, hooks: d.hooks };
    case 'waiting':
      cleanup.push(...d.cleanup);
      return { kind: 'waitHooks', phase, running: d.running, cleanup: dedupe(cleanup) };
    case 'failed':
      cleanup.push(...d.cleanup);
      return {
        kind: 'blocked',
        phase,
        hook: d.hook,
        message: blockedMessage(phase, d.message),
        cleanup: dedupe(cleanup),
      };
    default:
      return assertNever(d);
  }
}

export function blockedMessage(phase: DeletePhase, why: string): string {
  const done = phase === 'PreDelete' ? 'nothing has been deleted yet' : 'the objects are already deleted';
  return (
    `deletion blocked: ${why} (${done}). Fix the cause and force a sync (convoy sync --force) to run the ` +
    `${phase} hooks again, or remove the finalizer ${FINALIZER} to finish the deletion without them.`
  );
}

function dedupe(refs: readonly HookWorkloadRef[]): HookWorkloadRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => {
    const k = `${r.kind}/${r.namespace ?? ''}/${r.name}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
