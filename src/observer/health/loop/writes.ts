// The health loop's two writes (docs/design.md#health-loop): writeInventoryHealth (SSA,
// convoy-health-inventory), skipped when the cached object already holds the values, and writeHealth, its
// status part (the Healthy condition and healthSummary) through ../../status-writer.ts. The
// inventory apply carries the cached uid and resourceVersion: a stale cache can never re-create an
// inventory the controller deleted, and a changed one answers 409, which the caller turns into a requeue.
import { FIELD_MANAGERS } from '../../../api/constants.ts';
import { formatTime } from '../../../api/time.ts';
import type { Release, ReleaseInventory } from '../../../api/types.ts';
import type { KubeClient } from '../../../kube/client.ts';
import type { MergedInventory } from '../../../kube/inventory-parts.ts';
import type { ObserverStatusWriter } from '../../status-writer.ts';
import { applyEntryFieldsByPart } from '../../writes.ts';
import type { HealthyCondition } from '../condition.ts';
import {
  healthStatusBody,
  healthStatusUpToDate,
  holdPending,
  type InventoryHealthItem,
  inventoryHealthChanged,
} from './plan.ts';

/** Writes the parts whose health changed; returns the stored parts ([] when nothing was written). */
export async function writeInventoryHealth(
  client: KubeClient,
  inventory: MergedInventory,
  items: readonly InventoryHealthItem[],
  onWritten?: (replaced: ReleaseInventory, written: ReleaseInventory) => void,
): Promise<ReleaseInventory[]> {
  if (items.length === 0) return [];
  return applyEntryFieldsByPart(
    client,
    inventory,
    FIELD_MANAGERS.healthInventory,
    items,
    inventoryHealthChanged,
    onWritten,
  );
}

/**
 * Posts the Healthy condition and healthSummary to the observer's status writer, unless a Pending is held
 * (holdPending: `inFlight`, the controller's first record is on its way) or the cached status already
 * holds them.
 */
export async function writeHealth(
  status: ObserverStatusWriter,
  key: string,
  release: Release,
  cond: HealthyCondition,
  inFlight: boolean,
  now: Date,
): Promise<void> {
  if (holdPending(release, cond, inFlight)) return;
  const body = healthStatusBody(cond, release.status, release.metadata.generation, formatTime(now));
  if (healthStatusUpToDate(release.status, body)) return;
  await status.post(key, release, 'health', body);
}
