import type { InventoryEntry, Release } from '../../../api/types.ts';
import { entryFieldsChanged } from '../../entry-fields.ts';
import { loopStatus } from '../../status-condition.ts';
import { STATUS_PARTS } from '../../status-parts.ts';
import type { HealthyCondition } from '../condition.ts';
import { entryKey, type HealthState } from '../types.ts';

/** One entry as writeInventoryHealth sends it: the list-map keys plus the fields convoy-health-inventory owns. */
export interface InventoryHealthItem {
  readonly group: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly state: HealthState;
  readonly message: string;
  readonly firstUnhealthy?: string;
  readonly assessedRenderRef: string;
  readonly rule?: string;
}

/** Only entries that carry a renderRef are assessed and sent; assessedRenderRef is that renderRef. */
export function inventoryHealthItems(assessed: readonly InventoryEntry[]): InventoryHealthItem[] {
  const out: InventoryHealthItem[] = [];
  for (const e of assessed) {
    if (e.renderRef === undefined || e.state === undefined) continue;
    out.push({
      group: e.group,
      kind: e.kind,
      namespace: e.namespace ?? '',
      name: e.name,
      state: e.state,
      message: e.message ?? '',
      ...(e.firstUnhealthy !== undefined ? { firstUnhealthy: e.firstUnhealthy } : {}),
      assessedRenderRef: e.renderRef,
      ...(e.rule ? { rule: e.rule } : {}),
    });
  }
  return out;
}

/** True when applying `items` would change a value the cached inventory holds. */
export function inventoryHealthChanged(
  cached: readonly InventoryEntry[],
  items: readonly InventoryHealthItem[],
): boolean {
  return entryFieldsChanged(
    cached,
    items,
    (c, it) =>
      c.state === it.state &&
      (c.message ?? '') === it.message &&
      c.firstUnhealthy === it.firstUnhealthy &&
      c.assessedRenderRef === it.assessedRenderRef &&
      (c.rule ?? '') === (it.rule ?? ''),
  );
}

const healthStatus = loopStatus<typeof STATUS_PARTS.health.summary, HealthyCondition>(
  STATUS_PARTS.health.type,
  STATUS_PARTS.health.summary,
);
/** The status writeHealth applies; lastTransitionTime moves only when the condition's status changes. */
export const healthStatusBody = healthStatus.body;
/** True when the cached status already holds this Healthy condition and summary. */
export const healthStatusUpToDate = healthStatus.upToDate;

/**
 * Whether this pass leaves a Pending Healthy condition unwritten, because a report that replaces it is
 * on its way and wakes the loop:
 * - it would be the first one and the controller has not yet reported on this generation (its
 *   status.observedGeneration) — there is no attempt to wait for yet, only a queue. The controller's
 *   status write wakes the loop (./filters.ts), and its first report either names an attempt (the pass
 *   then judges it) or says why there is none (the pass then writes Pending): one status write per new
 *   Release fewer, and Pending still shown for a Release the controller could not apply;
 * - or the controller's record of the first wave is in flight (recordInFlight): its inventory event
 *   follows (docs/design.md#healthy-condition).
 */
export function holdPending(release: Release, cond: HealthyCondition, inFlight: boolean): boolean {
  if (cond.reason !== 'Pending') return false;
  if (inFlight) return true;
  const s = release.status;
  if (s?.lastAttempted !== undefined) return false;
  if ((s?.conditions ?? []).some((c) => c.type === 'Healthy')) return false;
  return s?.observedGeneration !== release.metadata.generation;
}

export interface PendingInput {
  /** Entries assessed in this pass (those with a renderRef); empty when not assessed. */
  readonly assessed: readonly InventoryEntry[];
  readonly runningHooks: readonly string[];
  readonly conditionReason: HealthyCondition['reason'] | undefined;
  /** The assessment itself failed: retried with the same backoff. */
  readonly assessFailed: boolean;
}

/** Target ids of scheduleHealthRecheck: objects not Healthy, Running hooks, render-pending while Pending. */
export function pendingTargets(input: PendingInput): string[] {
  const out: string[] = [];
  for (const e of input.assessed) if (e.state !== 'Healthy') out.push(`object:${entryKey(e)}`);
  for (const h of input.runningHooks) out.push(`hook:${h}`);
  if (input.conditionReason === 'Pending') out.push('render-pending');
  if (input.assessFailed) out.push('assess');
  return out;
}
