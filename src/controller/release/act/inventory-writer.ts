// Writes the controller's part of a ReleaseInventory: Server-Side Apply under convoy-controller of the keys,
// version, wave and renderRef of every entry it keeps and the definitions of every hook it armed (an apply
// that leaves an item out would drop the controller's fields of it), and the explicit removal patch for
// entries and hooks that leave (docs/design.md#field-ownership: another manager's fields would keep the item
// alive after a plain apply leaves it out). `pending` holds the keys of a wave between the moment they are
// noted (before the apply) and the moment they are recorded in `entries` (after it): only this writer owns
// that list, so an apply that leaves an item out removes it. A large inventory is split in parts
// (docs/design.md#inventory-parts): each write goes to the parts whose controller fields change, a key's
// entry and pending note share a part (recording is one write per part), part 0 is written first, and a
// part left with neither entries nor pending notes is deleted.
import { API_VERSION, FIELD_MANAGERS } from '../../../api/constants.ts';
import type {
  InventoryEntry,
  InventoryHook,
  InventoryKey,
  PendingEntry,
  Release,
  ReleaseInventory,
} from '../../../api/types.ts';
import { applyObject, existingOnly } from '../../../kube/apply.ts';
import type { KubeClient } from '../../../kube/client.ts';
import { removeInventoryItems } from '../../../kube/inventory.ts';
import {
  assignParts,
  DEFAULT_PART_LIMITS,
  emptyParts,
  type MergedInventory,
  mayBePartName,
  mergeParts,
  type PartLimits,
  partName,
  splitByPart,
} from '../../../kube/inventory-parts.ts';
import { deleteInventoryObject } from '../../../kube/inventory-read.ts';
import { nameOf, namespaceOf } from '../../../lib/names.ts';
import {
  contentOf,
  controllerFields,
  controllerHookFields,
  isControllerEntry,
  mergeEntries,
  mergeHooks,
  mergePending,
  pendingFields,
} from '../decide/inventory-fields.ts';
import { entryKey } from '../decide/sync/index.ts';
import { createPart, partMetadata } from './inventory-part-create.ts';

export {
  controllerFields,
  controllerHookFields,
  mergeEntries,
  mergeHooks,
  mergePending,
} from '../decide/inventory-fields.ts';
export { InventoryNameTakenError } from './inventory-part-create.ts';

export class InventoryWriter {
  readonly #client: KubeClient;
  readonly #release: Release;
  readonly #limits: PartLimits;
  #merged: MergedInventory | undefined;

  /** `current`: the inventory as last read (every part); the writer tracks it through its own writes. */
  constructor(
    client: KubeClient,
    release: Release,
    current: MergedInventory | undefined,
    limits: PartLimits = DEFAULT_PART_LIMITS,
  ) {
    this.#client = client;
    this.#release = release;
    this.#merged = current;
    this.#limits = limits;
  }

  get entries(): readonly InventoryEntry[] {
    return this.#merged?.inventory.entries ?? [];
  }

  /** The whole inventory: part 0 with the entries and pending notes of every part. */
  get inventory(): ReleaseInventory | undefined {
    return this.#merged?.inventory;
  }

  /** The inventory with its parts, as this writer last saw it. */
  get parts(): MergedInventory | undefined {
    return this.#merged;
  }

  /** Keys noted before an apply and not settled since (a crash or a failure in between). */
  get pending(): readonly PendingEntry[] {
    return this.#merged?.inventory.pending ?? [];
  }

  /**
   * Notes `entries` as pending: call it before applying them, so whatever happens next (a crash, a
   * failed apply) an inventory names every object convoy may have created.
   */
  async notePending(entries: readonly PendingEntry[]): Promise<void> {
    const pending = mergePending(this.pending, entries);
    if (pending.length === this.pending.length && entries.every((e) => this.#isPending(e))) return;
    await this.#apply(mergeEntries(this.#controllerEntries(), []), this.#controllerHooks(), pending);
  }

  /**
   * Adds or updates `changes`, keeping every other entry the controller holds; their keys leave
   * `pending` in the same write, and so do the keys in `settled` (pending ones found not to exist).
   * `ahead`: the keys of the wave applied next, noted pending in this same write (one write between
   * two waves instead of two; still before that wave's apply).
   */
  async record(
    changes: readonly InventoryEntry[],
    settled: readonly InventoryKey[] = [],
    ahead: readonly PendingEntry[] = [],
  ): Promise<void> {
    if (changes.length === 0 && ahead.length === 0 && !settled.some((k) => this.#isPending(k))) return;
    const done = [...changes, ...settled];
    const doneKeys = new Set(done.map(entryKey));
    await this.#apply(
      mergeEntries(this.#controllerEntries(), changes),
      this.#controllerHooks(),
      mergePending(
        mergePending(this.pending, [], done),
        ahead.filter((p) => !doneKeys.has(entryKey(p))),
      ),
    );
  }

  #isPending(k: InventoryKey): boolean {
    const key = entryKey(k);
    return this.pending.some((p) => entryKey(p) === key);
  }

  /**
   * Adds or replaces hook entries by name (the controller's fields of each), keeping every entry and
   * every other hook the controller holds. Call it only after the hook's workload exists.
   */
  async recordHooks(changes: readonly InventoryHook[]): Promise<void> {
    if (changes.length === 0) return;
    await this.#apply(
      mergeEntries(this.#controllerEntries(), []),
      mergeHooks(this.#controllerHooks(), changes),
      mergePending(this.pending, []),
    );
  }

  /** Entries that still carry the controller's fields: the others are only another manager's leftovers. */
  #controllerEntries(): InventoryEntry[] {
    return this.entries.filter(isControllerEntry);
  }

  #controllerHooks(): InventoryHook[] {
    return (this.#merged?.inventory.hooks ?? [])
      .filter((h) => h.phase !== undefined)
      .map(controllerHookFields);
  }

  /**
   * Writes the controller's whole view, part by part, ascending (part 0 first, so it exists before any
   * other part): only the parts whose controller fields change are written, and the parts left empty
   * are deleted after.
   */
  async #apply(entries: InventoryEntry[], hooks: InventoryHook[], pending: PendingEntry[]): Promise<void> {
    await this.#finishInterruptedDeletions();
    const objects = new Map(this.#merged?.objects ?? []);
    const assigned = assignParts(this.#merged?.parts ?? new Map(), [...entries, ...pending], this.#limits);
    const entriesBy = splitByPart(entries, assigned);
    const pendingBy = splitByPart(pending, assigned);
    const indices = new Set([0, ...objects.keys(), ...entriesBy.keys(), ...pendingBy.keys()]);
    for (const index of [...indices].sort((a, b) => a - b)) {
      const partEntries = entriesBy.get(index) ?? [];
      const partPending = pendingBy.get(index) ?? [];
      const partHooks = index === 0 ? hooks : [];
      const stored = objects.get(index);
      if (index > 0 && partEntries.length === 0 && partPending.length === 0) continue; // deleted below
      if (
        stored !== undefined &&
        contentOf(partEntries, partPending, partHooks) ===
          contentOf(
            (stored.entries ?? []).filter(isControllerEntry).map(controllerFields),
            (stored.pending ?? []).map(pendingFields),
            (stored.hooks ?? []).filter((h) => h.phase !== undefined).map(controllerHookFields),
          )
      )
        continue;
      objects.set(index, await this.#applyPart(index, stored, partEntries, partHooks, partPending));
      this.#merged = mergeParts(objects.get(0), [...objects.values()], this.#ref());
    }
    await this.#dropEmptyParts(entriesBy, pendingBy);
  }

  #ref() {
    return { namespace: namespaceOf(this.#release), name: nameOf(this.#release) };
  }

  async #applyPart(
    index: number,
    stored: ReleaseInventory | undefined,
    entries: InventoryEntry[],
    hooks: InventoryHook[],
    pending: PendingEntry[],
  ): Promise<ReleaseInventory> {
    // A part the read did not find is created first so that no write lands in another Release's part;
    // a part 0 whose name no part can have (docs/design.md#inventory-parts) is created by the apply itself.
    const direct = stored === undefined && index === 0 && !mayBePartName(partName(this.#ref().name, 0));
    const existing = stored ?? (direct ? undefined : await createPart(this.#client, this.#release, index));
    const body: ReleaseInventory = {
      apiVersion: API_VERSION,
      kind: 'ReleaseInventory',
      metadata: partMetadata(this.#release, index, existing),
      entries,
    };
    if (hooks.length > 0) body.hooks = hooks;
    if (pending.length > 0) body.pending = pending;
    // the uid: this very object, never one of the same name created since by someone else
    return applyObject(this.#client, body, {
      fieldManager: FIELD_MANAGERS.controller,
      force: true,
      ...(existing === undefined ? {} : existingOnly(existing)),
    });
  }

  /**
   * A part whose deletion a crash interrupted (deletionTimestamp set, finalizer still on) and that holds
   * nothing of the controller's: its deletion is finished, so no new key goes into a dying object.
   * Not while the Release itself is being deleted: the garbage collector marks every part then.
   */
  async #finishInterruptedDeletions(): Promise<void> {
    const merged = this.#merged;
    if (merged === undefined || this.#release.metadata.deletionTimestamp !== undefined) return;
    const dying = [...merged.objects.entries()].filter(
      ([i, o]) =>
        i > 0 &&
        o.metadata.deletionTimestamp !== undefined &&
        (o.entries ?? []).filter(isControllerEntry).length === 0 &&
        (o.pending ?? []).length === 0,
    );
    if (dying.length === 0) return;
    const objects = new Map(merged.objects);
    for (const [index, o] of dying) {
      await deleteInventoryObject(this.#client, namespaceOf(o), nameOf(o));
      objects.delete(index);
    }
    this.#merged = mergeParts(objects.get(0), [...objects.values()], this.#ref());
  }

  /** Deletes parts 1…N that hold neither entries nor pending notes any more. */
  async #dropEmptyParts(
    entriesBy: ReadonlyMap<number, readonly unknown[]> = new Map(),
    pendingBy: ReadonlyMap<number, readonly unknown[]> = new Map(),
  ): Promise<void> {
    const merged = this.#merged;
    if (merged === undefined) return;
    const empty = new Set(emptyParts(merged));
    // parts the controller's view leaves empty, even when another manager's leftover items remain in them
    for (const index of merged.objects.keys())
      if (index > 0 && !entriesBy.has(index) && !pendingBy.has(index)) empty.add(index);
    if (empty.size === 0) return;
    const objects = new Map(merged.objects);
    const { namespace, name } = this.#ref();
    for (const index of empty) {
      await deleteInventoryObject(this.#client, namespace, partName(name, index));
      objects.delete(index);
    }
    this.#merged = mergeParts(objects.get(0), [...objects.values()], this.#ref());
  }

  /** Takes entries (and hooks, by name) out for good: one explicit patch per part that holds some. */
  async remove(keys: readonly InventoryKey[], hookNames: readonly string[] = []): Promise<void> {
    if (keys.length === 0 && hookNames.length === 0) return;
    const merged = this.#merged;
    if (merged === undefined) return;
    const { namespace, name } = this.#ref();
    const byPart = splitByPart(keys, merged.parts, 'skip');
    if (hookNames.length > 0 && !byPart.has(0)) byPart.set(0, []);
    const objects = new Map(merged.objects);
    for (const index of [...byPart.keys()].sort((a, b) => a - b)) {
      const result = await removeInventoryItems(
        this.#client,
        { namespace, name: partName(name, index) },
        byPart.get(index) ?? [],
        index === 0 ? hookNames : [],
      );
      if (result.inventory === undefined) objects.delete(index);
      else objects.set(index, result.inventory);
    }
    this.#merged = mergeParts(objects.get(0), [...objects.values()], this.#ref());
    const left = this.#merged;
    await this.#dropEmptyParts(
      splitByPart(left.inventory.entries?.filter(isControllerEntry) ?? [], left.parts),
      splitByPart(left.inventory.pending ?? [], left.parts),
    );
  }
}
