// When a Release must be reconciled again for its rollout (DESIGN 4.6): the deadline requeue of a
// Progressing rollout, and the ReleaseInventory watch filter inventory.HealthChanged. Without them a
// healthy render could pass its deadline before the next poll and be rolled back.
import { parseDuration } from '../../../api/duration.ts';
import { elapsedSince } from './time.ts';
import { type FailurePolicy, type InventoryEntry, objectKey, type Rollout } from './types.ts';

export type WakeUp =
  | { readonly kind: 'none' }
  | { readonly kind: 'requeue'; readonly afterMs: number; readonly reason: 'deadline' | 'interval' };

export interface WakeUpInput {
  readonly rollout: Rollout | undefined;
  readonly failurePolicy: FailurePolicy | undefined;
  readonly pinned: boolean;
  readonly deleting: boolean;
  /** spec.syncPolicy.interval (Go duration); unset or "0": no periodic reconcile. */
  readonly interval: string | undefined;
  readonly now: number;
}

export function nextWakeUp(input: WakeUpInput): WakeUp {
  const interval = input.interval === undefined ? 0 : parseDuration(input.interval);
  const periodic: WakeUp =
    interval > 0 ? { kind: 'requeue', afterMs: interval, reason: 'interval' } : { kind: 'none' };
  const { rollout, failurePolicy } = input;
  // Failed and RolledBack wait for the interval (or a /sync); a rollout held by a gate has no clock yet.
  if (rollout?.state !== 'Progressing' || failurePolicy === undefined || input.pinned || input.deleting) {
    return periodic;
  }
  const elapsed = elapsedSince(rollout.startedAt, input.now);
  if (elapsed === undefined) return periodic;
  const remaining = parseDuration(failurePolicy.deadline) - elapsed;
  if (remaining <= 0) return periodic;
  // An interval of 0 means no periodic pass, not an immediate one: the deadline alone decides then.
  if (interval > 0 && interval <= remaining) return periodic;
  return { kind: 'requeue', afterMs: remaining, reason: 'deadline' };
}

interface InventoryLike {
  readonly entries?: readonly InventoryEntry[];
}

/** inventory.HealthChanged: the entry count, or an entry's state or assessedRenderRef, changed. */
export function healthChanged(oldInv: InventoryLike | undefined, newInv: InventoryLike | undefined): boolean {
  const before = oldInv?.entries ?? [];
  const after = newInv?.entries ?? [];
  if (before.length !== after.length) return true;
  const old = new Map(before.map((e) => [objectKey(e), e]));
  return after.some((e) => {
    const o = old.get(objectKey(e));
    return o === undefined || o.state !== e.state || o.assessedRenderRef !== e.assessedRenderRef;
  });
}
