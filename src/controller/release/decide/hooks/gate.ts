// What a hook phase's decision means for the sync that asked: go on, arm and hold, hold, or fail — and
// whether R's PreSync and PostSync hooks are settled, so a reconcile may skip the sync altogether (the
// upToDate shortcut must not skip a PostSync that has yet to run, nor a PreSync re-armed by a forced sync).
import { ANNOTATION_FORCE_SYNC_AT } from '../../../../api/constants.ts';
import type { InventoryEntry, InventoryHook, InventoryKey, Release } from '../../../../api/types.ts';
import { assertNever } from '../../../../lib/assert-never.ts';
import type { Obj } from '../../../../render/types.ts';
import type { HookFailedError } from '../../errors.ts';
import { forcedSyncPending } from '../sync/force.ts';
import type { HookArming } from './plan.ts';
import { planHookPhase } from './plan.ts';
import { type PostSyncDecision, planPostSync } from './post-sync.ts';

export type HookGate =
  | { readonly kind: 'proceed' }
  /** Create these workloads and record them, then hold. */
  | { readonly kind: 'arm'; readonly hooks: readonly HookArming[]; readonly message: string }
  | { readonly kind: 'hold'; readonly message: string }
  | { readonly kind: 'fail'; readonly message: string };

export function hookGate(phase: 'PreSync' | 'PostSync', d: PostSyncDecision): HookGate {
  switch (d.kind) {
    case 'none':
    case 'succeeded':
      return { kind: 'proceed' };
    case 'arm':
      return {
        kind: 'arm',
        hooks: d.hooks,
        message: `running ${phase} hooks: ${d.hooks.map((h) => h.hook.name).join(', ')}`,
      };
    case 'waiting':
      return { kind: 'hold', message: `waiting for ${phase} hooks: ${d.running.join(', ')}` };
    case 'notReady':
      return { kind: 'hold', message: d.message };
    case 'failed':
      return { kind: 'fail', message: d.message };
    default:
      return assertNever(d);
  }
}

export interface SyncHooksSettledInput {
  readonly renderRef: string;
  /** render.hooks of R. */
  readonly hooks: readonly Obj[];
  /** Every object of R. */
  readonly objects: readonly InventoryKey[];
  readonly entries: readonly InventoryEntry[];
  readonly hookEntries: readonly InventoryHook[];
  readonly healthAssessed: boolean;
  readonly forcedAt: string | undefined;
  readonly now: number;
}

/** True when R's PreSync and PostSync hooks have nothing left to do: none, or all Succeeded. */
export function syncHooksSettled(input: SyncHooksSettledInput): boolean {
  const pre = planHookPhase({
    phase: 'PreSync',
    hooks: input.hooks,
    renderRef: input.renderRef,
    entries: input.hookEntries,
    forcedAt: input.forcedAt,
    now: input.now,
  });
  if (pre.kind !== 'none' && pre.kind !== 'succeeded') return false;
  const post = planPostSync(input);
  return post.kind === 'none' || post.kind === 'succeeded';
}

/**
 * The latest forced sync a hook arming must not be older than: the pending request, else the last one
 * handled (so the reconciles after a forced sync still see its re-armed hooks as current).
 */
export function forcedAtOf(release: Release): string | undefined {
  const annotations = release.metadata.annotations;
  return forcedSyncPending(annotations, release.status)
    ? annotations?.[ANNOTATION_FORCE_SYNC_AT]
    : release.status?.lastHandledForceSyncAt;
}

export type SyncHookStep =
  | { readonly kind: 'proceed'; readonly notes: readonly string[] }
  | { readonly kind: 'hold'; readonly message: string; readonly notes: readonly string[] }
  | { readonly kind: 'fail'; readonly error: HookFailedError; readonly notes: readonly string[] };
