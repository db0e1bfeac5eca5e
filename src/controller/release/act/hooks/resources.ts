// Hook resources removed by their delete policy (docs/design.md#hooks): once R's PreSync (or PostSync)
// hooks succeeded — or failed — the hook step deletes the resources spentHookResources names, then drops
// their entries (and any pending note of theirs): delete first, then the record, so a crash in between
// leaves an entry the next sync of R finds and removes again. Deleted as prune deletes (only objects that
// name this Release's uid), whatever spec.syncPolicy.prune says: the chart asked for it.
import type { Release } from '../../../../api/types.ts';
import { keyString, objectKey } from '../../../../render/keys.ts';
import type { Obj } from '../../../../render/types.ts';
import { crdsKeptNote, entryKey } from '../../decide/sync/index.ts';
import type { InventoryWriter } from '../inventory-writer.ts';
import { foreignNote, pruneEntries } from '../prune.ts';
import type { Target } from '../target.ts';

/** Deletes the spent resources the inventory still names and drops their entries; returns notes. */
export async function removeSpentResources(
  release: Release,
  target: Pick<Target, 'client' | 'readClient'>,
  writer: InventoryWriter,
  spent: readonly Obj[],
): Promise<string[]> {
  if (spent.length === 0) return [];
  const keys = new Set(spent.map((o) => keyString(objectKey(o))));
  const recorded = writer.entries.filter((e) => keys.has(entryKey(e)));
  const pending = writer.pending.filter((p) => keys.has(entryKey(p)));
  if (recorded.length === 0 && pending.length === 0) return [];
  const plan = await pruneEntries(target, {
    recorded,
    pending,
    policy: { prune: true },
    pruneCRDs: release.spec.syncPolicy?.pruneCRDs === true,
    readLive: true,
    releaseUid: release.metadata.uid ?? '',
  });
  await writer.record([], pending);
  await writer.remove(recorded);
  const notes: string[] = [];
  if (plan.toDelete.length > 0) {
    const names = plan.toDelete.map((e) => `${e.kind}/${e.name}`).join(', ');
    notes.push(`deleted ${plan.toDelete.length} hook resources by their delete policy: ${names}`);
  }
  if (plan.notOurs > 0) notes.push(foreignNote(plan.notOurs, 'a hook delete policy names'));
  if (plan.crdsKept > 0) notes.push(crdsKeptNote(plan.crdsKept));
  return notes;
}
