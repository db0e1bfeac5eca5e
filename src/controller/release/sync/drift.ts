// selfHeal's wake-up: the drift loop flags entries in the inventory; an entry turning drifted must
// reach the controller even when the observer's /sync arrived before the cache showed the flag.
import type { InventoryKey } from '../../../api/types.ts';
import { entryKey } from './inventory.ts';

type DriftEntry = InventoryKey & { readonly drifted?: boolean };

interface DriftInventory {
  readonly entries?: readonly DriftEntry[];
}

/** True when some entry is drifted now and was not before (a new entry counts when drifted). */
export function driftAppeared(
  before: DriftInventory | undefined,
  after: DriftInventory | undefined,
): boolean {
  const was = new Set((before?.entries ?? []).filter((e) => e.drifted === true).map(entryKey));
  return (after?.entries ?? []).some((e) => e.drifted === true && !was.has(entryKey(e)));
}
