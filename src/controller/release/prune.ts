// Prune's I/O (docs/design.md#prune): read the live objects of the entries that leave (is each convoy's,
// for this Release's uid, and not opted out with prune: disabled), delete them in pruneSet's order, and
// settle the keys an interrupted sync left pending (docs/design.md#field-ownership). Used by stageSync,
// applyLastHealthy (docs/design.md#apply-last-healthy) and deletion (docs/design.md#deletion).
import { ANNOTATION_PRUNE, ANNOTATION_RELEASE_UID, PRUNE_DISABLED } from '../../api/constants.ts';
import type { InventoryKey, Release } from '../../api/types.ts';
import type { KubeClient } from '../../kube/client.ts';
import { entryRef, keyString, objectKey } from '../../render/keys.ts';
import type { Obj } from '../../render/types.ts';
import { appliedBy, mapLimit } from './deployer.ts';
import type { InventoryWriter } from './inventory-writer.ts';
import { entryKey, entryKindRank, pruneSet } from './sync/index.ts';
import type { Target } from './target.ts';

/**
 * Crash and failure recovery: keys an earlier sync noted as pending and never recorded. Those in R stay
 * pending (their wave applies and records them); those already recorded are the prune's to decide; the
 * others left the render: each is deleted (prune allowing) when its live object names this Release's uid
 * — never on the label alone — and leaves `pending` either way. Covers every kind convoy applied, since
 * every applied object was noted first.
 */
export async function settleInterrupted(
  objects: readonly Obj[],
  writer: InventoryWriter,
  release: Release,
  target: Pick<Target, 'client' | 'readClient'>,
): Promise<string[]> {
  if (writer.pending.length === 0) return [];
  const renderKeys = new Set(objects.map((o) => keyString(objectKey(o))));
  const recorded = new Set(writer.entries.filter((e) => e.renderRef !== undefined).map(entryKey));
  const leaving = writer.pending.filter((p) => !renderKeys.has(entryKey(p)));
  if (leaving.length === 0) return [];
  const toSettle = leaving.filter((p) => !recorded.has(entryKey(p)));
  const marks = await liveMarks(target.readClient, toSettle, release.metadata.uid ?? '');
  const ours = toSettle.filter((p) => marks.ours.has(entryKey(p)));
  const plan = pruneSet(ours, renderKeys, {
    prune: release.spec.syncPolicy?.prune ?? true,
    isPruneDisabled: (k) => marks.disabled.has(entryKey(k)),
  });
  await deleteInOrder(target.client, plan.toDelete);
  await writer.record([], leaving);
  const notes: string[] = [];
  if (plan.toDelete.length > 0)
    notes.push(`pruned ${plan.toDelete.length} objects an interrupted sync applied and left the render`);
  const foreign = toSettle.length - ours.length - marks.absent;
  if (foreign > 0) notes.push(foreignNote(foreign, 'an interrupted sync noted'));
  return notes;
}

/** The note (and so the Event) for objects convoy will not delete because nothing proves they are its. */
export function foreignNote(n: number, which: string): string {
  return (
    `left ${n} objects that ${which} in place: convoy's field manager did not set their ` +
    `${ANNOTATION_RELEASE_UID} to this Release's uid (another Release's, or written by someone else)`
  );
}

/** Deletes what left R (unless prune is off or the object opts out) and drops all of it from the inventory. */
export async function prune(
  release: Release,
  objects: readonly Obj[],
  writer: InventoryWriter,
  client: KubeClient,
  read: KubeClient,
): Promise<{ readonly deleted: number; readonly foreign: number }> {
  const renderKeys = new Set(objects.map((o) => keyString(objectKey(o))));
  const leaving = writer.entries.filter((e) => !renderKeys.has(entryKey(e)));
  if (leaving.length === 0) return { deleted: 0, foreign: 0 };
  const marks = await liveMarks(read, leaving, release.metadata.uid ?? '');
  const plan = pruneSet(leaving, renderKeys, {
    prune: release.spec.syncPolicy?.prune ?? true,
    isPruneDisabled: (k) => marks.disabled.has(entryKey(k)) || marks.foreign.has(entryKey(k)),
  });
  await deleteInOrder(client, plan.toDelete);
  await writer.remove([...plan.toDelete, ...plan.toForget]);
  return {
    deleted: plan.toDelete.length,
    foreign: leaving.filter((e) => marks.foreign.has(entryKey(e))).length,
  };
}

export interface LiveMarks {
  /** Keys whose live object carries convoy.kumodo.io/prune: disabled. */
  readonly disabled: Set<string>;
  /** Keys whose live object names this Release's uid (ANNOTATION_RELEASE_UID). */
  readonly ours: Set<string>;
  /**
   * Keys whose live object names another uid (another Release applied it since), or names this one
   * without convoy's field manager having set it (a forgery): never deleted.
   */
  readonly foreign: Set<string>;
  /** How many have no live object. */
  readonly absent: number;
}

/** Reads the live object of each entry (16 at once) for what prune must know before deleting it. */
export async function liveMarks(
  read: KubeClient,
  entries: readonly (InventoryKey & { version?: string })[],
  releaseUid: string,
): Promise<LiveMarks> {
  const marks = {
    disabled: new Set<string>(),
    ours: new Set<string>(),
    foreign: new Set<string>(),
    absent: 0,
  };
  await mapLimit(entries, 16, async (e) => {
    const live = await liveObject(read, e);
    const key = entryKey(e);
    if (live === undefined) {
      marks.absent++;
      return;
    }
    if (live.metadata.annotations?.[ANNOTATION_PRUNE] === PRUNE_DISABLED) marks.disabled.add(key);
    const owner = live.metadata.annotations?.[ANNOTATION_RELEASE_UID];
    if (appliedBy(live, releaseUid)) marks.ours.add(key);
    else if (owner !== undefined) marks.foreign.add(key);
  });
  return marks;
}

/**
 * The live object of an entry; undefined when there is none: also when its kind is no longer served, or
 * it is namespaced and the entry names no namespace (an apply of it was rejected, so none can exist).
 */
async function liveObject(
  read: KubeClient,
  e: InventoryKey & { version?: string },
): Promise<Obj | undefined> {
  const ref = entryRef(e);
  try {
    if (e.namespace === '' && (await read.resourceFor(ref.apiVersion, ref.kind)).namespaced) return undefined;
    return await read.get<Obj>(ref);
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

/**
 * Deletes entries in the order given (pruneSet's: highest wave first, Namespaces and CRDs last in a
 * wave), 8 at once among neighbours of the same wave and kind rank, which may go in any order.
 */
export async function deleteInOrder(
  client: KubeClient,
  entries: readonly (InventoryKey & { version?: string; wave?: number })[],
): Promise<void> {
  let start = 0;
  while (start < entries.length) {
    const first = entries[start] as InventoryKey & { wave?: number };
    let end = start + 1;
    while (end < entries.length) {
      const e = entries[end] as InventoryKey & { wave?: number };
      if ((e.wave ?? 0) !== (first.wave ?? 0) || entryKindRank(e) !== entryKindRank(first)) break;
      end++;
    }
    await mapLimit(entries.slice(start, end), 8, (e) => deleteEntry(client, e));
    start = end;
  }
}

export async function deleteEntry(client: KubeClient, e: InventoryKey & { version?: string }): Promise<void> {
  try {
    await client.delete(entryRef(e), { propagationPolicy: 'Background' });
  } catch (err) {
    if ((err as { code?: number }).code === 404) return;
    throw err;
  }
}
