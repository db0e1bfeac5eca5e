// pruneSet: which inventory entries leave, and of those which are deleted from the target
// cluster and which are only forgotten (docs/design.md#prune: an object that leaves the render but is not
// pruned leaves the inventory all the same).
import type { InventoryEntry, InventoryKey } from '../../../api/types.ts';
import { entryKey } from './inventory.ts';

export type PruneOptions = {
  /** spec.syncPolicy.prune (default true). Ignored on deletion. */
  readonly prune: boolean;
  /** Whether the live object carries convoy.kumodo.io/prune: disabled (the caller reads it). */
  readonly isPruneDisabled: (key: InventoryKey) => boolean;
  /**
   * Set while the Release is being deleted: every entry leaves. Delete removes them all but
   * those marked prune: disabled (a person's explicit keep outlives the Release); Orphan keeps all.
   */
  readonly deletion?: { readonly deletionPolicy: 'Delete' | 'Orphan' };
};

export type PrunePlan = {
  /** In deletion order: highest wave first, and within a wave the reverse of apply order. */
  readonly toDelete: readonly InventoryEntry[];
  /** Leave the inventory without being deleted. */
  readonly toForget: readonly InventoryEntry[];
};

export function pruneSet(
  entries: readonly InventoryEntry[],
  renderKeys: ReadonlySet<string>,
  options: PruneOptions,
): PrunePlan {
  const leaving = options.deletion ? [...entries] : entries.filter((e) => !renderKeys.has(entryKey(e)));
  const deletable = options.deletion ? options.deletion.deletionPolicy === 'Delete' : options.prune;
  const toDelete: InventoryEntry[] = [];
  const toForget: InventoryEntry[] = [];
  for (const e of leaving) {
    if (deletable && !options.isPruneDisabled(e)) toDelete.push(e);
    else toForget.push(e);
  }
  return { toDelete: toDelete.sort(deletionOrder), toForget };
}

/** Namespaces and CRDs last inside a wave: deleting them first would take their contents along. */
export function entryKindRank(e: InventoryKey): number {
  if (e.group === '' && e.kind === 'Namespace') return 0;
  if (e.group === 'apiextensions.k8s.io' && e.kind === 'CustomResourceDefinition') return 1;
  return 2;
}

function deletionOrder(a: InventoryEntry, b: InventoryEntry): number {
  const ka = entryKey(a);
  const kb = entryKey(b);
  return (
    (b.wave ?? 0) - (a.wave ?? 0) || entryKindRank(b) - entryKindRank(a) || (ka < kb ? 1 : ka > kb ? -1 : 0)
  );
}
