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
import { API_VERSION, FIELD_MANAGERS, INVENTORY_FINALIZER } from '../../api/constants.ts';
import type {
  InventoryEntry,
  InventoryHook,
  InventoryKey,
  PendingEntry,
  Release,
  ReleaseInventory,
} from '../../api/types.ts';
import { applyObject, existingOnly } from '../../kube/apply.ts';
import type { KubeClient } from '../../kube/client.ts';
import { isAlreadyExists } from '../../kube/errors.ts';
import { removeInventoryItems } from '../../kube/inventory.ts';
import {
  assignParts,
  DEFAULT_PART_LIMITS,
  emptyParts,
  inventoryLabelValue,
  keyOf,
  LABEL_INVENTORY_OF,
  type MergedInventory,
  mergeParts,
  type PartLimits,
  partName,
  splitByPart,
} from '../../kube/inventory-parts.ts';
import { deleteInventoryObject, readInventoryParts } from '../../kube/inventory-read.ts';
import { entryKey } from './sync/index.ts';

/** The fields of an entry convoy-controller owns (docs/design.md#field-ownership). */
export function controllerFields(e: InventoryEntry): InventoryEntry {
  const out: InventoryEntry = { group: e.group, kind: e.kind, namespace: e.namespace, name: e.name };
  if (e.version !== undefined) out.version = e.version;
  if (e.wave !== undefined) out.wave = e.wave;
  if (e.renderRef !== undefined) out.renderRef = e.renderRef;
  return out;
}

/**
 * The fields of a hook entry convoy-controller owns (docs/design.md#field-ownership): all but the observer's.
 */
export function controllerHookFields(h: InventoryHook): InventoryHook {
  const { state: _s, reason: _r, message: _m, finishedAt: _f, ...mine } = h;
  return mine;
}

/** Entries of `current` updated by `changes` (same key: replaced), in a stable order. */
export function mergeEntries(
  current: readonly InventoryEntry[],
  changes: readonly InventoryEntry[],
): InventoryEntry[] {
  const byKey = new Map<string, InventoryEntry>();
  for (const e of current) byKey.set(entryKey(e), controllerFields(e));
  for (const e of changes) byKey.set(entryKey(e), controllerFields(e));
  return [...byKey.values()];
}

/** Pending entries of `current` plus `added` (same key: replaced) minus the keys in `settled`. */
export function mergePending(
  current: readonly PendingEntry[],
  added: readonly PendingEntry[],
  settled: readonly InventoryKey[] = [],
): PendingEntry[] {
  const byKey = new Map<string, PendingEntry>();
  for (const e of [...current, ...added]) byKey.set(entryKey(e), pendingFields(e));
  for (const k of settled) byKey.delete(entryKey(k));
  return [...byKey.values()];
}

function pendingFields(e: PendingEntry): PendingEntry {
  const out: PendingEntry = { group: e.group, kind: e.kind, namespace: e.namespace, name: e.name };
  if (e.version !== undefined) out.version = e.version;
  if (e.wave !== undefined) out.wave = e.wave;
  if (e.renderRef !== undefined) out.renderRef = e.renderRef;
  return out;
}

/** Hooks of `current` updated by `changes` (same name: replaced), in a stable order. */
export function mergeHooks(
  current: readonly InventoryHook[],
  changes: readonly InventoryHook[],
): InventoryHook[] {
  const byName = new Map<string, InventoryHook>();
  for (const h of current) byName.set(h.name, controllerHookFields(h));
  for (const h of changes) byName.set(h.name, controllerHookFields(h));
  return [...byName.values()];
}

/** The ReleaseInventory, every part, as the API has it now (not the cache): what a writer must start from. */
export function readInventory(local: KubeClient, release: Release): Promise<MergedInventory | undefined> {
  return readInventoryParts(local, {
    namespace: release.metadata.namespace ?? '',
    name: release.metadata.name ?? '',
  });
}

/** A part's controller-owned content, order-insensitive, to tell whether a write would change it. */
function contentOf(
  entries: readonly InventoryEntry[],
  pending: readonly PendingEntry[],
  hooks: readonly InventoryHook[],
) {
  const sorted = (xs: readonly object[]) => xs.map((x) => JSON.stringify(x)).sort();
  return JSON.stringify([sorted(entries), sorted(pending), sorted(hooks)]);
}

/** An inventory object of the same name that belongs to another Release (or to nothing convoy wrote). */
export class InventoryNameTakenError extends Error {
  override name = 'InventoryNameTakenError';
}

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
   */
  async record(changes: readonly InventoryEntry[], settled: readonly InventoryKey[] = []): Promise<void> {
    if (changes.length === 0 && !settled.some((k) => this.#isPending(k))) return;
    await this.#apply(
      mergeEntries(this.#controllerEntries(), changes),
      this.#controllerHooks(),
      mergePending(this.pending, [], [...changes, ...settled]),
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
    return { namespace: this.#release.metadata.namespace ?? '', name: this.#release.metadata.name ?? '' };
  }

  /** Metadata every part carries: the protection finalizer, the Release as owner, the label on 1…N. */
  #metadata(index: number, stored: ReleaseInventory | undefined): ReleaseInventory['metadata'] {
    const { name = '', namespace = '', uid = '' } = this.#release.metadata;
    return {
      name: partName(name, index),
      namespace,
      ...(index > 0 ? { labels: { [LABEL_INVENTORY_OF]: inventoryLabelValue(name) } } : {}),
      // No finalizer can be added to an object being deleted: an inventory the garbage collector is
      // already deleting without it (written before convoy set it) is applied without it.
      ...(stored?.metadata.deletionTimestamp === undefined ||
      stored.metadata.finalizers?.includes(INVENTORY_FINALIZER)
        ? { finalizers: [INVENTORY_FINALIZER] }
        : {}),
      ownerReferences: [
        { apiVersion: API_VERSION, kind: 'Release', name, uid, controller: true, blockOwnerDeletion: true },
      ],
    };
  }

  async #applyPart(
    index: number,
    stored: ReleaseInventory | undefined,
    entries: InventoryEntry[],
    hooks: InventoryHook[],
    pending: PendingEntry[],
  ): Promise<ReleaseInventory> {
    const existing = stored ?? (await this.#create(index));
    const body: ReleaseInventory = {
      apiVersion: API_VERSION,
      kind: 'ReleaseInventory',
      metadata: this.#metadata(index, existing),
      entries,
    };
    if (hooks.length > 0) body.hooks = hooks;
    if (pending.length > 0) body.pending = pending;
    // the uid: this very object, never one of the same name created since by someone else
    return applyObject(this.#client, body, {
      fieldManager: FIELD_MANAGERS.controller,
      force: true,
      ...existingOnly(existing),
    });
  }

  /**
   * Creates a part that the last read did not find, with its metadata only (the apply fills it). An
   * object already there is taken only when it is this Release's: a Release named like another's part
   * (`shop-part-1`) must never write into that part, nor the other way round.
   */
  async #create(index: number): Promise<ReleaseInventory> {
    const metadata = this.#metadata(index, undefined);
    try {
      return await this.#client.create<ReleaseInventory>(
        { apiVersion: API_VERSION, kind: 'ReleaseInventory', metadata },
        { fieldManager: FIELD_MANAGERS.controller },
      );
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    const ref = { apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace: metadata.namespace ?? '' };
    const live = await this.#client.get<ReleaseInventory>({ ...ref, name: metadata.name ?? '' });
    const owner = live?.metadata.ownerReferences?.find((o) => o.kind === 'Release')?.uid;
    const label = live?.metadata.labels?.[LABEL_INVENTORY_OF];
    const ours = owner === this.#release.metadata.uid && label === metadata.labels?.[LABEL_INVENTORY_OF];
    if (live === undefined || !ours)
      throw new InventoryNameTakenError(
        `ReleaseInventory ${metadata.namespace}/${metadata.name} (part ${index} of the inventory of Release ` +
          `${this.#release.metadata.name}) exists and belongs to ${label === undefined ? `Release ${metadata.name}` : `the inventory of another Release (${LABEL_INVENTORY_OF}=${label})`}; rename one of the Releases`,
      );
    return live;
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
      await deleteInventoryObject(this.#client, o.metadata.namespace ?? '', o.metadata.name ?? '');
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
    const byPart = new Map<number, InventoryKey[]>();
    for (const k of keys) {
      const index = merged.parts.get(keyOf(k));
      if (index === undefined) continue;
      byPart.set(index, [...(byPart.get(index) ?? []), k]);
    }
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

function isControllerEntry(e: InventoryEntry): boolean {
  return e.renderRef !== undefined || e.wave !== undefined;
}
