// Writes the controller's part of a ReleaseInventory: Server-Side Apply under convoy-controller of the keys,
// version, wave and renderRef of every entry it keeps and the definitions of every hook it armed (an apply
// that leaves an item out would drop the controller's fields of it), and the explicit removal patch for
// entries and hooks that leave (docs/design.md#field-ownership: another manager's fields would keep the item
// alive after a plain apply leaves it out). `pending` holds the keys of a wave between the moment they are
// noted (before the apply) and the moment they are recorded in `entries` (after it): only this writer owns
// that list, so an apply that leaves an item out removes it.
import { API_VERSION, FIELD_MANAGERS, INVENTORY_FINALIZER } from '../../api/constants.ts';
import type {
  InventoryEntry,
  InventoryHook,
  InventoryKey,
  PendingEntry,
  Release,
  ReleaseInventory,
} from '../../api/types.ts';
import { applyObject } from '../../kube/apply.ts';
import type { KubeClient } from '../../kube/client.ts';
import { removeInventoryItems } from '../../kube/inventory.ts';
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

/** The ReleaseInventory as the API has it now (not the cache): what a writer must start from. */
export function readInventory(local: KubeClient, release: Release): Promise<ReleaseInventory | undefined> {
  return local.get<ReleaseInventory>({
    apiVersion: API_VERSION,
    kind: 'ReleaseInventory',
    namespace: release.metadata.namespace ?? '',
    name: release.metadata.name ?? '',
  });
}

export class InventoryWriter {
  readonly #client: KubeClient;
  readonly #release: Release;
  #current: ReleaseInventory | undefined;

  /** `current`: the inventory as last read; the writer tracks it through its own writes. */
  constructor(client: KubeClient, release: Release, current: ReleaseInventory | undefined) {
    this.#client = client;
    this.#release = release;
    this.#current = current;
  }

  get entries(): readonly InventoryEntry[] {
    return this.#current?.entries ?? [];
  }

  get inventory(): ReleaseInventory | undefined {
    return this.#current;
  }

  /** Keys noted before an apply and not settled since (a crash or a failure in between). */
  get pending(): readonly PendingEntry[] {
    return this.#current?.pending ?? [];
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
    return this.entries.filter((e) => e.renderRef !== undefined || e.wave !== undefined);
  }

  #controllerHooks(): InventoryHook[] {
    return (this.#current?.hooks ?? []).filter((h) => h.phase !== undefined).map(controllerHookFields);
  }

  async #apply(entries: InventoryEntry[], hooks: InventoryHook[], pending: PendingEntry[]): Promise<void> {
    const { name = '', namespace = '', uid = '' } = this.#release.metadata;
    const body: ReleaseInventory = {
      apiVersion: API_VERSION,
      kind: 'ReleaseInventory',
      metadata: {
        name,
        namespace,
        // No finalizer can be added to an object being deleted: an inventory the garbage collector is
        // already deleting without it (written before convoy set it) is applied without it.
        ...(this.#current?.metadata.deletionTimestamp === undefined ||
        this.#current.metadata.finalizers?.includes(INVENTORY_FINALIZER)
          ? { finalizers: [INVENTORY_FINALIZER] }
          : {}),
        ownerReferences: [
          { apiVersion: API_VERSION, kind: 'Release', name, uid, controller: true, blockOwnerDeletion: true },
        ],
      },
      entries,
    };
    if (hooks.length > 0) body.hooks = hooks;
    if (pending.length > 0) body.pending = pending;
    this.#current = await applyObject(this.#client, body, {
      fieldManager: FIELD_MANAGERS.controller,
      force: true,
    });
  }

  /** Takes entries (and hooks, by name) out for good (explicit patch). */
  async remove(keys: readonly InventoryKey[], hookNames: readonly string[] = []): Promise<void> {
    if (keys.length === 0 && hookNames.length === 0) return;
    const { name = '', namespace = '' } = this.#release.metadata;
    const result = await removeInventoryItems(this.#client, { namespace, name }, keys, hookNames);
    this.#current = result.inventory;
  }
}
