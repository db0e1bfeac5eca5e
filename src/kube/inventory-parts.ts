// The layout of a large ReleaseInventory (docs/design.md#inventory-parts): one object per part, so no
// write ever nears the apiserver's request limits (3 MiB body, etcd's 1.5 MiB value) — 10,000 entries
// with the fields of three managers and their managedFields come to about 6 MiB in one object. Part 0
// is the ReleaseInventory named like its Release (hooks and the first entries); parts 1…N are
// ReleaseInventories named `<name>-part-<i>`, labelled with the Release's name. A key's entry and its
// `pending` note live in the same part, so recording a key (pending → entries) is one write of one
// object. Every manager keeps its fields of an entry in whichever part holds it (field ownership
// unchanged: docs/design.md#field-ownership). A key stays in its part for as long as it is recorded or
// pending, so a write touches only the parts whose entries changed, and new keys fill the lowest part
// with room. Pure; the writers and readers (inventory-read.ts) do the I/O.
import { createHash } from 'node:crypto';
import { API_VERSION } from '../api/constants.ts';
import type { InventoryEntry, InventoryKey, PendingEntry, ReleaseInventory } from '../api/types.ts';
import { nameOf } from '../lib/names.ts';

/** At most this many entries per part. */
export const PART_MAX_ENTRIES = 1000;
/** At most this many estimated bytes (entries + managedFields of every manager) per part: etcd takes 1.5 MiB. */
export const PART_MAX_BYTES = 1024 * 1024;
/** Label on parts 1…N: the name of the Release (and of part 0). */
export const LABEL_INVENTORY_OF = 'convoy.kumodo.io/inventory-of';

const MAX_NAME = 253;
const MAX_LABEL = 63;

/** The value of LABEL_INVENTORY_OF on the parts of Release `release` (a hash when the name is too long). */
export function inventoryLabelValue(release: string): string {
  if (release.length <= MAX_LABEL) return release;
  return `h-${createHash('sha256').update(release).digest('hex').slice(0, 40)}`;
}

/** Whether `o` is a part (1…N) of some Release's inventory, not a part 0. */
export function isPartObject(o: Pick<ReleaseInventory, 'metadata'>): boolean {
  return o.metadata.labels?.[LABEL_INVENTORY_OF] !== undefined;
}

/**
 * The name of the Release an inventory object belongs to, from the object alone: its own name for a
 * part 0; for a part, its owner Release, or else the name without its `-part-<i>` suffix when that gives
 * the label back; undefined when neither fits.
 */
export function releaseNameOf(o: Pick<ReleaseInventory, 'metadata'>): string | undefined {
  const name = nameOf(o);
  const label = o.metadata.labels?.[LABEL_INVENTORY_OF];
  if (label === undefined) return name;
  const owner = o.metadata.ownerReferences?.find((r) => r.kind === 'Release')?.name;
  if (owner !== undefined && inventoryLabelValue(owner) === label && partIndexOf(owner, name) !== undefined)
    return owner;
  const m = /^(.*)-part-[1-9][0-9]{0,4}$/.exec(name);
  const release = m?.[1];
  if (
    release !== undefined &&
    inventoryLabelValue(release) === label &&
    partIndexOf(release, name) !== undefined
  )
    return release;
  return undefined;
}

export function keyOf(k: InventoryKey): string {
  return JSON.stringify([k.group, k.kind, k.namespace, k.name]);
}

/** Name of part `index` of the inventory of Release `release` (part 0: the Release's own name). */
export function partName(release: string, index: number): string {
  if (index === 0) return release;
  const suffix = `-part-${index}`;
  if (release.length + suffix.length <= MAX_NAME) return `${release}${suffix}`;
  // too long: a prefix plus a hash of the whole name keeps it unique and within 253 characters
  const hash = createHash('sha256').update(release).digest('hex').slice(0, 10);
  return `${release.slice(0, MAX_NAME - suffix.length - hash.length - 1)}-${hash}${suffix}`;
}

/**
 * Whether `name` could be part 1…N of some Release's inventory (every part name ends `-part-<i>`): a
 * name that cannot is only ever part 0 of the Release of that name.
 */
export function mayBePartName(name: string): boolean {
  return /-part-[1-9][0-9]{0,4}$/.test(name);
}

/** The part index of an inventory object named `name` for Release `release`; undefined when not one. */
export function partIndexOf(release: string, name: string): number | undefined {
  if (name === release) return 0;
  const m = /-part-([1-9][0-9]{0,4})$/.exec(name);
  if (m?.[1] === undefined) return undefined;
  const index = Number(m[1]);
  return partName(release, index) === name ? index : undefined;
}

/**
 * Estimated bytes an entry costs its part: its JSON with every manager's fields (about 420 bytes
 * beside the key) plus its key once per managedFields entry of each of three managers.
 */
export function entryBytes(k: InventoryKey): number {
  const key = k.group.length + k.kind.length + k.namespace.length + k.name.length;
  return 420 + 4 * (key + 60);
}

export interface PartLimits {
  readonly maxEntries: number;
  readonly maxBytes: number;
}

export const DEFAULT_PART_LIMITS: PartLimits = { maxEntries: PART_MAX_ENTRIES, maxBytes: PART_MAX_BYTES };

/**
 * The part of every key in `keys`: a key already placed (`current`) stays; a new one goes to the lowest
 * part with room (by count and estimated bytes), a new part when none has. Keys of `current` not in
 * `keys` are dropped (they leave the inventory), which frees their room.
 */
export function assignParts(
  current: ReadonlyMap<string, number>,
  keys: readonly InventoryKey[],
  limits: PartLimits = DEFAULT_PART_LIMITS,
): Map<string, number> {
  const out = new Map<string, number>();
  const count: number[] = [];
  const bytes: number[] = [];
  const place = (key: string, k: InventoryKey, part: number) => {
    out.set(key, part);
    count[part] = (count[part] ?? 0) + 1;
    bytes[part] = (bytes[part] ?? 0) + entryBytes(k);
  };
  const fresh: InventoryKey[] = [];
  for (const k of keys) {
    const key = keyOf(k);
    if (out.has(key)) continue;
    const part = current.get(key);
    if (part === undefined) fresh.push(k);
    else place(key, k, part);
  }
  let part = 0;
  for (const k of fresh) {
    const key = keyOf(k);
    if (out.has(key)) continue;
    const size = entryBytes(k);
    while ((count[part] ?? 0) >= limits.maxEntries || (bytes[part] ?? 0) + size > limits.maxBytes) {
      // an entry bigger than a whole part still gets a part of its own
      if ((count[part] ?? 0) === 0) break;
      part++;
    }
    place(key, k, part);
  }
  return out;
}

/**
 * Entries grouped by part index, in the order given; parts that get none are absent. An entry whose key
 * has no part is an error, or with `missing: 'skip'` left out (a removal or a write of fields for a key
 * the inventory no longer holds).
 */
export function splitByPart<T extends InventoryKey>(
  entries: readonly T[],
  parts: ReadonlyMap<string, number>,
  missing: 'throw' | 'skip' = 'throw',
): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const e of entries) {
    const part = parts.get(keyOf(e));
    if (part === undefined) {
      if (missing === 'skip') continue;
      throw new Error(`inventory entry ${keyOf(e)} has no part`);
    }
    const list = out.get(part);
    if (list === undefined) out.set(part, [e]);
    else list.push(e);
  }
  return out;
}

export interface MergedInventory {
  /** Part 0 with the entries and pending notes of every part, in part order. */
  readonly inventory: ReleaseInventory;
  /** The part index of each key, in entries or in pending. */
  readonly parts: Map<string, number>;
  /** Each part object by index (part 0 included), as read. */
  readonly objects: Map<number, ReleaseInventory>;
}

/**
 * One logical inventory from part 0 and the other parts read beside it (any order; objects that are
 * not labelled parts of `head`'s Release are ignored). An entry or pending note present in two parts
 * (never written so; a part edited by hand) counts in the lowest. `head` undefined: part 0 is missing
 * (a deletion that stopped between the parts and part 0), the merged head is an empty shell named
 * `release` — undefined when there is no part at all.
 */
export function mergeParts(
  head: ReleaseInventory | undefined,
  others: readonly ReleaseInventory[],
  ref?: { readonly namespace: string; readonly name: string },
): MergedInventory {
  const release = head?.metadata.name ?? ref?.name ?? '';
  const label = inventoryLabelValue(release);
  const objects = new Map<number, ReleaseInventory>();
  if (head !== undefined) objects.set(0, head);
  for (const o of others) {
    if (o.metadata.labels?.[LABEL_INVENTORY_OF] !== label) continue;
    const index = partIndexOf(release, nameOf(o));
    if (index !== undefined && index > 0) objects.set(index, o);
  }
  const parts = new Map<string, number>();
  const entries: InventoryEntry[] = [];
  const pending: PendingEntry[] = [];
  const seenPending = new Set<string>();
  for (const index of [...objects.keys()].sort((a, b) => a - b)) {
    const o = objects.get(index);
    for (const e of o?.entries ?? []) {
      const key = keyOf(e);
      if (parts.has(key) && parts.get(key) !== index) continue;
      parts.set(key, index);
      entries.push(e);
    }
    for (const p of o?.pending ?? []) {
      const key = keyOf(p);
      if (seenPending.has(key) || (parts.has(key) && parts.get(key) !== index)) continue;
      seenPending.add(key);
      parts.set(key, index);
      pending.push(p);
    }
  }
  const shell: ReleaseInventory = head ?? {
    apiVersion: API_VERSION,
    kind: 'ReleaseInventory',
    metadata: { name: release, namespace: ref?.namespace ?? others[0]?.metadata.namespace ?? '' },
  };
  const { pending: _p, entries: _e, ...rest } = shell;
  const inventory: ReleaseInventory = { ...rest, entries };
  if (pending.length > 0) inventory.pending = pending;
  return { inventory, parts, objects };
}

/** The part objects of `merged` other than part 0 whose entries and pending notes are both empty. */
export function emptyParts(merged: Pick<MergedInventory, 'objects'>): number[] {
  return [...merged.objects.entries()]
    .filter(([i, o]) => i > 0 && (o.entries ?? []).length === 0 && (o.pending ?? []).length === 0)
    .map(([i]) => i);
}
