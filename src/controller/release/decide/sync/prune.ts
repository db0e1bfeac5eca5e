// pruneSet: which inventory entries leave, and of those which are deleted from the target
// cluster and which are only forgotten (docs/design.md#prune: an object that leaves the render but is not
// pruned leaves the inventory all the same).
import type { InventoryEntry, InventoryKey } from '../../../../api/types.ts';
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

/** What prune knows of each entry's live object (prune.ts reads them), by entryKey. */
export interface LiveMarks {
  /** Keys whose live object carries convoy.kumodo.io/prune: disabled. */
  readonly disabled: ReadonlySet<string>;
  /** Keys whose live object names this Release's uid (ANNOTATION_RELEASE_UID), set by convoy. */
  readonly ours: ReadonlySet<string>;
  /**
   * Keys whose live object names another uid (another Release applied it since), or names this one
   * without convoy's field manager having set it (a forgery): never deleted.
   */
  readonly foreign: ReadonlySet<string>;
  /** Keys with no live object. */
  readonly absent: ReadonlySet<string>;
}

export interface PruneInput {
  /** Recorded entries that leave: convoy's unless their live object names another uid now. */
  readonly recorded: readonly InventoryEntry[];
  /**
   * Keys noted pending and never recorded that leave: convoy's only when their live object names this
   * Release's uid (the apply may never have happened, the object may be someone else's).
   */
  readonly pending: readonly InventoryEntry[];
  /** A sync or rollback prunes with spec.syncPolicy.prune; a deletion with its deletionPolicy. */
  readonly policy: { readonly prune: boolean } | { readonly deletionPolicy: 'Delete' | 'Orphan' };
  /** Undefined when the live objects were not read (a deletion that orphans): nothing is deleted. */
  readonly marks: LiveMarks | undefined;
  /**
   * spec.syncPolicy.pruneCRDs: whether a CustomResourceDefinition may be deleted at all. Deleting one
   * deletes every custom resource of its kind in the whole cluster, so without the opt-in it only leaves
   * the inventory.
   */
  readonly pruneCRDs: boolean;
}

export interface PruneDecision extends PrunePlan {
  /** Left in place because nothing proves they are convoy's (the note says so). */
  readonly notOurs: number;
  /** CustomResourceDefinitions that would have been deleted but for pruneCRDs unset (the note says so). */
  readonly crdsKept: number;
}

export const isCRD = (k: InventoryKey): boolean => entryKindRank(k) === 1;

/**
 * The one prune decision of sync, rollback, the settling of an interrupted sync and deletion
 * (docs/design.md#prune): every entry given leaves the inventory; which of them are deleted.
 */
export function prunePlan(input: PruneInput): PruneDecision {
  const { marks } = input;
  const recorded = new Set(input.recorded.map(entryKey));
  const pending = input.pending.filter((p) => !recorded.has(entryKey(p)));
  const leaving = [...input.recorded, ...pending];
  if (marks === undefined) {
    const plan = pruneSet(leaving, new Set(), { prune: false, isPruneDisabled: () => true });
    return { ...plan, notOurs: 0, crdsKept: 0 };
  }
  const notOurs = (k: InventoryKey): boolean => {
    const key = entryKey(k);
    return recorded.has(key) ? marks.foreign.has(key) : !marks.absent.has(key) && !marks.ours.has(key);
  };
  const options = {
    prune: 'prune' in input.policy ? input.policy.prune : true,
    // A pending key with no live object is not deleted either: nothing proves it was ever convoy's.
    isPruneDisabled: (k: InventoryKey) => {
      const key = entryKey(k);
      return marks.disabled.has(key) || (recorded.has(key) ? marks.foreign.has(key) : !marks.ours.has(key));
    },
    ...('deletionPolicy' in input.policy
      ? { deletion: { deletionPolicy: input.policy.deletionPolicy } }
      : {}),
  };
  const unguarded = pruneSet(leaving, new Set(), options);
  const counted = leaving.filter(notOurs).length;
  if (input.pruneCRDs) return { ...unguarded, notOurs: counted, crdsKept: 0 };
  const plan = pruneSet(leaving, new Set(), {
    ...options,
    isPruneDisabled: (k: InventoryKey) => isCRD(k) || options.isPruneDisabled(k),
  });
  return { ...plan, notOurs: counted, crdsKept: unguarded.toDelete.filter(isCRD).length };
}

/** The note (and so the Event) for the CustomResourceDefinitions a prune left in place. */
export function crdsKeptNote(n: number): string {
  return (
    `left ${n} CustomResourceDefinitions in place: deleting one deletes every custom resource of its kind ` +
    'in the cluster; set spec.syncPolicy.pruneCRDs: true to let convoy delete them'
  );
}
