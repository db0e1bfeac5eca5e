// The pure parts of one drift pass: the inventory items writeInventoryDrift sends and its "nothing
// changed" check, the Drifted condition and driftSummary with theirs, whether selfHeal asks for a sync,
// and when the next pass runs.
import { inventoryKeyOf } from '../../api/keys.ts';
import type {
  DriftedReason,
  DriftSummary,
  InventoryEntry,
  InventoryKey,
  ReleaseStatus,
} from '../../api/types.ts';
import { entryFieldsChanged } from '../entry-fields.ts';
import { progressBackoff } from '../health/backoff.ts';
import { type LoopCondition, loopStatus } from '../status-condition.ts';
import { STATUS_PARTS } from '../status-parts.ts';
import type { DriftResult } from './detect.ts';
import { clamp, driftMessage, shortDrift } from './message.ts';

/** What one entry's check gave. */
export type EntryOutcome =
  | { readonly kind: 'checked'; readonly entry: InventoryKey; readonly result: DriftResult }
  /** Could not be compared (the read was refused, its render is not in the store …): keeps what it had. */
  | { readonly kind: 'unknown'; readonly entry: InventoryKey; readonly reason: string };

export type CheckOutcome =
  /** The target cluster could not be read at all. */
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'checked'; readonly entries: readonly EntryOutcome[] };

/** One entry as writeInventoryDrift sends it: the list-map keys plus the fields convoy-drift owns. */
export interface InventoryDriftItem extends InventoryKey {
  readonly drifted: boolean;
  readonly driftMessage?: string;
}

export const idOf = (e: InventoryKey): string => inventoryKeyOf(e);

/** Checked entries get their result; unknown ones re-send what they had, so the write does not drop it. */
export function inventoryDriftItems(
  cached: readonly InventoryEntry[],
  outcomes: readonly EntryOutcome[],
): InventoryDriftItem[] {
  const prior = new Map(cached.map((e) => [idOf(e), e]));
  const out: InventoryDriftItem[] = [];
  for (const o of outcomes) {
    const keys = {
      group: o.entry.group,
      kind: o.entry.kind,
      namespace: o.entry.namespace,
      name: o.entry.name,
    };
    if (o.kind === 'unknown') {
      const p = prior.get(idOf(o.entry));
      if (p?.drifted !== undefined)
        out.push({
          ...keys,
          drifted: p.drifted,
          ...(p.driftMessage ? { driftMessage: p.driftMessage } : {}),
        });
      continue;
    }
    // In sync is the absence of drift fields: a new render in sync costs no inventory write, and an
    // entry that drifted before has its fields released by the apply that leaves it out.
    if (o.result.kind === 'inSync') continue;
    out.push({ ...keys, drifted: true, driftMessage: driftMessage(o.entry.kind, o.result) });
  }
  return out;
}

/** True when applying `items` would change the cached inventory (a value, or a field it would drop). */
export function inventoryDriftChanged(
  cached: readonly InventoryEntry[],
  items: readonly InventoryDriftItem[],
): boolean {
  return entryFieldsChanged(
    cached,
    items,
    (c, it) => c.drifted === it.drifted && (c.driftMessage ?? '') === (it.driftMessage ?? ''),
    // An entry this manager wrote but no longer sends: the apply releases its fields.
    (c) => c.drifted !== undefined || c.driftMessage !== undefined,
  );
}

/** Entries that became drifted in this pass (selfHeal's edge). */
export function newlyDrifted(
  cached: readonly InventoryEntry[],
  items: readonly InventoryDriftItem[],
): string[] {
  const prior = new Map(cached.map((e) => [idOf(e), e.drifted === true]));
  return items.filter((it) => it.drifted && prior.get(idOf(it)) !== true).map(idOf);
}

/** The Drifted reasons this loop writes: the API's, less NotConfigured (no pass runs with drift off). */
export type DriftedCondition = LoopCondition<Exclude<DriftedReason, 'NotConfigured'>, DriftSummary>;

/** How many objects the condition's message names. */
const LISTED = 3;
const MAX_CONDITION_MESSAGE = 32768;

const objectName = (e: InventoryKey) => `${e.kind} ${e.name}`;

export function driftedCondition(
  outcome: CheckOutcome,
  previous: DriftSummary | undefined,
): DriftedCondition {
  if (outcome.kind === 'failed') {
    return {
      status: 'Unknown',
      reason: 'DriftCheckFailed',
      message: clamp(outcome.message, MAX_CONDITION_MESSAGE),
      summary: previous ?? { drifted: 0, total: 0 },
    };
  }
  const total = outcome.entries.length;
  const drifted: string[] = [];
  const unknown: string[] = [];
  for (const o of outcome.entries) {
    if (o.kind === 'unknown') unknown.push(`${objectName(o.entry)} (${o.reason})`);
    else if (o.result.kind !== 'inSync')
      drifted.push(`${objectName(o.entry)} (${shortDrift(o.entry.kind, o.result)})`);
  }
  const list = (xs: readonly string[]) =>
    `${xs.slice(0, LISTED).join(', ')}${xs.length > LISTED ? `, and ${xs.length - LISTED} more` : ''}`;
  const summary = { drifted: drifted.length, total };
  if (drifted.length > 0) {
    return {
      status: 'True',
      reason: 'Drifted',
      message: clamp(
        `${drifted.length} of ${total} objects drifted: ${list(drifted)}`,
        MAX_CONDITION_MESSAGE,
      ),
      summary,
    };
  }
  if (unknown.length > 0) {
    return {
      status: 'Unknown',
      reason: 'DriftCheckFailed',
      message: clamp(
        `${unknown.length} of ${total} objects could not be checked: ${list(unknown)}`,
        MAX_CONDITION_MESSAGE,
      ),
      summary,
    };
  }
  return {
    status: 'False',
    reason: 'InSync',
    message: total === 0 ? 'no objects applied' : `${total} of ${total} objects in sync`,
    summary,
  };
}

/**
 * Whether a pass writes the Drifted condition at all: not before the controller has reported an attempt
 * (status.lastAttempted) on a Release without a Drifted condition yet — "in sync over 0 objects" would be
 * a status write per new Release that says nothing, and the controller records the inventory before it
 * writes its status, so a pass woken by the record would write alone what the pass woken by the status
 * writes together with the Healthy condition (docs/design.md#observer-status); nor while the record of
 * the first wave is in flight (recordInFlight): its inventory event wakes the loop.
 */
export function driftStatusDue(
  status: Pick<ReleaseStatus, 'lastAttempted' | 'conditions'> | undefined,
  inFlight = false,
): boolean {
  if (inFlight) return false;
  return status?.lastAttempted !== undefined || (status?.conditions ?? []).some((c) => c.type === 'Drifted');
}

const driftStatus = loopStatus<typeof STATUS_PARTS.drift.summary, DriftedCondition>(
  STATUS_PARTS.drift.type,
  STATUS_PARTS.drift.summary,
);
/** The status writeDrift applies; lastTransitionTime moves only when the condition's status changes. */
export const driftStatusBody = driftStatus.body;
export const driftStatusUpToDate = driftStatus.upToDate;

/**
 * selfHeal for one Release while it is drifted, in memory: the controller's status.lastAttempted.time when
 * the sync was first asked for (its re-apply moves it), how many requests went out, whether the last one
 * failed to get through, and whether the controller has re-applied since (settled: no more requests).
 */
export interface HealState {
  readonly attemptAt: string | undefined;
  readonly requests: number;
  readonly unsent: boolean;
  readonly settled: boolean;
}

/** Requests per drift edge while the controller has not re-applied (a wake-up it read too early). */
export const MAX_HEAL_REQUESTS = 5;

export interface HealInput {
  readonly selfHeal: boolean;
  /** Entries drifted now. */
  readonly drifted: number;
  /** Entries that became drifted in this pass. */
  readonly newlyDrifted: number;
  /** status.lastAttempted.time now. */
  readonly attemptAt: string | undefined;
  readonly prior: HealState | undefined;
}

export type HealDecision =
  /** Nothing drifted, or no selfHeal: forget the state. */
  | { readonly kind: 'none' }
  /** Ask for a sync; `state` is what to keep once it got through. */
  | { readonly kind: 'request'; readonly state: HealState }
  /** Nothing to send now; keep `state`. */
  | { readonly kind: 'wait'; readonly state: HealState };

/**
 * Drift with selfHeal asks for a sync: when an entry becomes drifted, and when drift is found with no heal
 * on record (selfHeal just turned on, or the observer restarted). A drift still there asks again, a
 * bounded number of times (the passes come back at 2 s, 4 s, 8 s …): the controller may read the wake-up
 * before its inventory cache shows the drift and find nothing to do, and a drift a re-apply cannot fix
 * must not loop. When the controller records a new attempt (lastAttempted.time moved) the drift is
 * settled at once. Re-applying the same render does not move it today (status times change only when
 * what they describe changes), so in practice MAX_HEAL_REQUESTS bounds a drift that does not heal.
 * Only an entry that becomes drifted anew asks again.
 */
export function decideHeal(i: HealInput): HealDecision {
  if (!i.selfHeal || i.drifted === 0) return { kind: 'none' };
  const p = i.prior;
  if (i.newlyDrifted > 0 || p === undefined)
    return { kind: 'request', state: { attemptAt: i.attemptAt, requests: 1, unsent: false, settled: false } };
  if (p.unsent) return { kind: 'request', state: { ...p, unsent: false } };
  if (p.settled) return { kind: 'wait', state: p };
  if (i.attemptAt !== p.attemptAt) return { kind: 'wait', state: { ...p, settled: true } };
  if (p.requests >= MAX_HEAL_REQUESTS) return { kind: 'wait', state: p };
  return { kind: 'request', state: { ...p, requests: p.requests + 1 } };
}

export const DEFAULT_DRIFT_INTERVAL_MS = 5 * 60_000;

export interface DelayInput {
  /** --drift-interval, when given. */
  readonly flagMs: number | undefined;
  /** The Release's syncPolicy.interval (undefined: unset or 0). */
  readonly intervalMs: number | undefined;
  /** Passes in a row that awaited a heal or failed (0: neither). */
  readonly urgentAttempts: number;
  readonly random: () => number;
}

/** The interval; a pass awaiting a heal or after a failure comes back sooner (2 s, 4 s, … capped at it). */
export function nextDelayMs(i: DelayInput): number {
  const interval = i.flagMs ?? i.intervalMs ?? DEFAULT_DRIFT_INTERVAL_MS;
  if (i.urgentAttempts <= 0) return interval;
  return progressBackoff(i.urgentAttempts, interval, i.random);
}
