// Which inventory entries an assessment may judge. An entry whose key the controller has also noted as
// pending for another render is in flux: that render's apply is under way or was cut short by a crash
// (noted, maybe applied, never recorded), so the live object may already be the other render's while the
// entry still names its own. Judging it would put the other render's health under this entry's
// renderRef — e.g. a rollback to R2 killed between its apply and its record left R3's Deployment entry
// judged Healthy on R2's pods, and R3's PostSync hook then ran. Such an entry keeps its last judgement
// until the controller records or settles the key (docs/design.md#inventory-parts: pending is never
// assessed). Pure; the table test is beside it.
import type { InventoryEntry, PendingEntry } from '../../../api/types.ts';
import { entryKey } from '../types.ts';

export function assessable(
  entries: readonly InventoryEntry[],
  pending: readonly PendingEntry[],
): InventoryEntry[] {
  const noted = new Map(pending.map((p) => [entryKey(p), p.renderRef]));
  return entries.filter((e) => {
    if (e.renderRef === undefined) return false;
    const k = entryKey(e);
    return !noted.has(k) || noted.get(k) === e.renderRef;
  });
}
