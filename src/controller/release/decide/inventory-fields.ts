// The controller's own fields of inventory items (docs/design.md#field-ownership) and the merges the
// InventoryWriter makes of them: pure, beside the writer that sends them.
import type { InventoryEntry, InventoryHook, InventoryKey, PendingEntry } from '../../../api/types.ts';
import { entryKey } from './sync/index.ts';

/**
 * The fields of an entry convoy-controller owns (docs/design.md#field-ownership): a pending entry's (the
 * key, version, wave and renderRef) and the resourceVersion the apply returned.
 */
export function controllerFields(e: InventoryEntry): InventoryEntry {
  const out: InventoryEntry = pendingFields(e);
  if (e.appliedResourceVersion !== undefined) out.appliedResourceVersion = e.appliedResourceVersion;
  return out;
}

/**
 * The fields of a hook entry convoy-controller owns (docs/design.md#field-ownership): all but the observer's.
 */
export function controllerHookFields(h: InventoryHook): InventoryHook {
  const { state: _s, reason: _r, message: _m, finishedAt: _f, ...mine } = h;
  return mine;
}

/**
 * Entries of `current` updated by `changes` (same key: replaced), in a stable order. An entry re-applied
 * for the render it already records keeps its appliedResourceVersion: any version since that render's
 * first apply is as fresh for it (docs/design.md#watched-reads), and a re-apply that returns a newer one
 * (a status update in between) must not make an unchanged reconcile write the inventory.
 */
export function mergeEntries(
  current: readonly InventoryEntry[],
  changes: readonly InventoryEntry[],
): InventoryEntry[] {
  const before = new Map(current.map((e) => [entryKey(e), e]));
  const kept = changes.map((c) => {
    const prior = before.get(entryKey(c));
    return prior?.appliedResourceVersion !== undefined && prior.renderRef === c.renderRef
      ? { ...c, appliedResourceVersion: prior.appliedResourceVersion }
      : c;
  });
  return mergeBy(current, kept, entryKey, controllerFields);
}

/** `current` updated by `changes` (same key: replaced, first position kept), each through `fields`. */
function mergeBy<T>(
  current: readonly T[],
  changes: readonly T[],
  keyOf: (t: T) => string,
  fields: (t: T) => T,
): T[] {
  const byKey = new Map<string, T>();
  for (const t of [...current, ...changes]) byKey.set(keyOf(t), fields(t));
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

/** The fields of a pending entry: its key, version, wave and renderRef (nothing another manager set). */
export function pendingFields(e: PendingEntry): PendingEntry {
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
  return mergeBy(current, changes, (h) => h.name, controllerHookFields);
}

/** A part's controller-owned content, order-insensitive, to tell whether a write would change it. */
export function contentOf(
  entries: readonly InventoryEntry[],
  pending: readonly PendingEntry[],
  hooks: readonly InventoryHook[],
) {
  const sorted = (xs: readonly object[]) => xs.map((x) => JSON.stringify(x)).sort();
  return JSON.stringify([sorted(entries), sorted(pending), sorted(hooks)]);
}

/** An entry that still carries the controller's fields (not only another manager's leftovers). */
export function isControllerEntry(e: InventoryEntry): boolean {
  return e.renderRef !== undefined || e.wave !== undefined;
}
