// Whether an apply of one field manager's entry fields would change the cached inventory: the check the
// health and drift loops make before each inventory write (a write that changes nothing is skipped).
// Each loop says which of its fields must match; the apply itself is ./writes.ts.
import { inventoryKeyOf } from '../api/keys.ts';
import type { InventoryEntry, InventoryKey } from '../api/types.ts';

/**
 * True when applying `items` would change `cached`: an item not cached yet, or one whose fields differ
 * (`same` is false); with `holds`, also a cached entry no longer sent that still holds one of this
 * manager's fields, which the apply releases.
 */
export function entryFieldsChanged<T extends InventoryKey>(
  cached: readonly InventoryEntry[],
  items: readonly T[],
  same: (cached: InventoryEntry, item: T) => boolean,
  holds?: (cached: InventoryEntry) => boolean,
): boolean {
  const byKey = new Map(cached.map((e) => [inventoryKeyOf(e), e]));
  const differs = (it: T) => {
    const c = byKey.get(inventoryKeyOf(it));
    return c === undefined || !same(c, it);
  };
  if (items.some(differs)) return true;
  if (holds === undefined) return false;
  const sent = new Set(items.map(inventoryKeyOf));
  return cached.some((c) => !sent.has(inventoryKeyOf(c)) && holds(c));
}
