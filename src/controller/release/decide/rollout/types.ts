// The API types the rollout decisions read and write (src/api), taken from src/api so the two
// cannot drift, plus the small helpers the decisions share. Times are RFC 3339 strings as in the API;
// the decisions take `now` as epoch milliseconds.
import type { HookPhase } from '../../../../api/constants.ts';
import type {
  Condition,
  ConditionStatus,
  EntryState,
  FailurePolicy,
  HookState,
  InventoryEntry,
  InventoryHook,
  InventoryKey,
  LastAttempted,
  RenderRecord,
  RolloutState,
  RolloutStatus,
  WaveStatus,
} from '../../../../api/types.ts';

export type {
  Condition,
  ConditionStatus,
  FailurePolicy,
  HookPhase,
  HookState,
  InventoryEntry,
  RolloutState,
  WaveStatus,
};
/** status.rollout */
export type Rollout = RolloutStatus;
/** status.lastAttempted */
export type Attempt = LastAttempted;
/** status.lastSuccessful, status.lastHealthy */
export type RenderStamp = RenderRecord;
/** ReleaseInventory hooks[] */
export type HookEntry = InventoryHook;
export type HealthState = EntryState;
/** The identity of an object: the list-map keys of inventory entries. */
export type ObjectRef = InventoryKey;

/** The render of this reconcile as the rollout decisions see it. */
export interface RenderId {
  readonly renderRef: string;
  readonly revision: string;
}

export { inventoryKeyOf as objectKey } from '../../../../api/keys.ts';

/** The wave an entry was recorded in; the sync-wave annotation defaults to 0. */
export function entryWave(e: InventoryEntry): number {
  return e.wave ?? 0;
}

/** "Deployment web/api" for messages. */
export function describeObject(o: ObjectRef): string {
  return o.namespace === '' ? `${o.kind} ${o.name}` : `${o.kind} ${o.namespace}/${o.name}`;
}

/** A render reference shortened for human messages: "sha256:0123456789ab…". */
export function shortRef(renderRef: string): string {
  const hex = renderRef.startsWith('sha256:') ? renderRef.slice('sha256:'.length) : renderRef;
  return hex.length > 12 ? `sha256:${hex.slice(0, 12)}…` : renderRef;
}
