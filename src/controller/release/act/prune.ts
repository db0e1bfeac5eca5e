// Prune's I/O (docs/design.md#prune): read the live objects of the entries that leave (is each convoy's,
// for this Release's uid, and not opted out with prune: disabled), delete them in pruneSet's order, and
// settle the keys an interrupted sync left pending (docs/design.md#field-ownership). Used by stageSync,
// applyLastHealthy (docs/design.md#apply-last-healthy) and deletion (docs/design.md#deletion).
import { ANNOTATION_RELEASE_UID } from '../../../api/constants.ts';
import type { InventoryKey, Release } from '../../../api/types.ts';
import type { KubeClient } from '../../../kube/client.ts';
import { keptBy } from '../../../render/annotations.ts';
import { entryRef, keyString, objectKey } from '../../../render/keys.ts';
import type { Obj } from '../../../render/types.ts';
import { forEachBounded } from '../../../runtime/index.ts';
import {
  crdsKeptNote,
  entryKey,
  entryKindRank,
  type LiveMarks,
  type PruneDecision,
  type PruneInput,
  prunePlan,
} from '../decide/sync/index.ts';
import { appliedBy } from './deployer.ts';
import type { InventoryWriter } from './inventory-writer.ts';
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
  const plan = await pruneEntries(target, {
    recorded: [],
    pending: leaving.filter((p) => !recorded.has(entryKey(p))),
    policy: { prune: release.spec.syncPolicy?.prune ?? true },
    pruneCRDs: release.spec.syncPolicy?.pruneCRDs === true,
    readLive: true,
    releaseUid: release.metadata.uid ?? '',
  });
  await writer.record([], leaving);
  const notes: string[] = [];
  if (plan.toDelete.length > 0)
    notes.push(`pruned ${plan.toDelete.length} objects an interrupted sync applied and left the render`);
  if (plan.notOurs > 0) notes.push(foreignNote(plan.notOurs, 'an interrupted sync noted'));
  if (plan.crdsKept > 0) notes.push(crdsKeptNote(plan.crdsKept));
  return notes;
}

/**
 * The one prune (docs/design.md#prune): reads the live objects of the entries given (unless `readLive` is
 * false: a deletion that orphans, whose target may not even be resolved), decides with prunePlan and
 * deletes in its order. The inventory writes are the caller's: each removes or settles differently.
 */
export async function pruneEntries(
  target: Pick<Target, 'client' | 'readClient'> | undefined,
  input: Omit<PruneInput, 'marks'> & { readonly readLive: boolean; readonly releaseUid: string },
): Promise<PruneDecision> {
  const { recorded, pending, policy } = input;
  if (recorded.length === 0 && pending.length === 0)
    return { toDelete: [], toForget: [], notOurs: 0, crdsKept: 0 };
  const marks = input.readLive
    ? await liveMarks(need(target).readClient, [...recorded, ...pending], input.releaseUid)
    : undefined;
  const plan = prunePlan({ recorded, pending, policy, marks, pruneCRDs: input.pruneCRDs });
  if (plan.toDelete.length > 0) await deleteInOrder(need(target).client, plan.toDelete);
  return plan;
}

function need(
  target: Pick<Target, 'client' | 'readClient'> | undefined,
): Pick<Target, 'client' | 'readClient'> {
  if (target === undefined)
    throw new Error('prune: the target is needed to read or delete, and not resolved');
  return target;
}

/** The note (and so the Event) for objects convoy will not delete because nothing proves they are its. */
export function foreignNote(n: number, which: string): string {
  return (
    `left ${n} objects that ${which} in place: convoy's field manager did not set their ` +
    `${ANNOTATION_RELEASE_UID} to this Release's uid (another Release's, or written by someone else)`
  );
}

/**
 * Prune after a sync or a rollback: deletes what left `objects` (the render applied; unless prune is off
 * or the object opts out) and drops all of it from the inventory.
 */
export async function pruneLeft(
  release: Release,
  objects: readonly Obj[],
  writer: InventoryWriter,
  target: Pick<Target, 'client' | 'readClient'>,
): Promise<{ readonly deleted: number; readonly foreign: number; readonly crdsKept: number }> {
  const renderKeys = new Set(objects.map((o) => keyString(objectKey(o))));
  const leaving = writer.entries.filter((e) => !renderKeys.has(entryKey(e)));
  if (leaving.length === 0) return { deleted: 0, foreign: 0, crdsKept: 0 };
  const plan = await pruneEntries(target, {
    recorded: leaving,
    pending: [],
    policy: { prune: release.spec.syncPolicy?.prune ?? true },
    pruneCRDs: release.spec.syncPolicy?.pruneCRDs === true,
    readLive: true,
    releaseUid: release.metadata.uid ?? '',
  });
  await writer.remove([...plan.toDelete, ...plan.toForget]);
  return { deleted: plan.toDelete.length, foreign: plan.notOurs, crdsKept: plan.crdsKept };
}

/** Reads the live object of each entry (16 at once) for what prune must know before deleting it. */
async function liveMarks(
  read: KubeClient,
  entries: readonly (InventoryKey & { version?: string })[],
  releaseUid: string,
): Promise<LiveMarks> {
  const marks = {
    disabled: new Set<string>(),
    ours: new Set<string>(),
    foreign: new Set<string>(),
    absent: new Set<string>(),
  };
  await forEachBounded(entries, 16, async (e) => {
    const live = await liveObject(read, e);
    const key = entryKey(e);
    if (live === undefined) {
      marks.absent.add(key);
      return;
    }
    if (keptBy(live.metadata.annotations) !== undefined) marks.disabled.add(key);
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
    await forEachBounded(entries.slice(start, end), 8, async (e) => {
      await deleteEntry(client, e);
    });
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
