// The layout of a large ReleaseInventory: one object per part, so no write ever nears the apiserver's
// request limits (3 MiB body, etcd's 1.5 MiB value) — 10,000 entries with the fields of three managers
// and their managedFields come to about 6 MiB in one object. Part 0 is the ReleaseInventory named like
// its Release (hooks, pending and the first entries); parts 1…N are ReleaseInventories named
// `<name>-part-<i>`, labelled with the Release's name, holding entries only. Every manager keeps its
// fields of an entry in whichever part holds it (field ownership unchanged: docs/design.md#field-ownership). A key stays in its part for as
// long as it is recorded, so a write touches only the parts whose entries changed, and new keys fill the
// lowest part with room. Pure; the writers and readers do the I/O.
import { createHash } from 'node:crypto';
import type { InventoryEntry, InventoryKey, ReleaseInventory } from '../api/types.ts';

/** At most this many entries per part. */
export const PART_MAX_ENTRIES = 1000;
/** At most this many estimated bytes (entries + managedFields of every manager) per part: etcd takes 1.5 MiB. */
export const PART_MAX_BYTES = 1024 * 1024;
/** Label on parts 1…N: the name of the Release (and of part 0). */
export const LABEL_INVENTORY_OF = 'convoy.kumodo.io/inventory-of';

const MAX_NAME = 253;

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

/** Entries grouped by part index, in the order given; parts that get none are absent. */
export function splitByPart<T extends InventoryKey>(
  entries: readonly T[],
  parts: ReadonlyMap<string, number>,
): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const e of entries) {
    const part = parts.get(keyOf(e));
    if (part === undefined) throw new Error(`inventory entry ${keyOf(e)} has no part`);
    const list = out.get(part);
    if (list === undefined) out.set(part, [e]);
    else list.push(e);
  }
  return out;
}

export interface MergedInventory {
  /** Part 0 with the entries of every part, in part order. */
  readonly inventory: ReleaseInventory;
  /** The part index of each entry's key. */
  readonly parts: Map<string, number>;
  /** Each part object by index (part 0 included), as read. */
  readonly objects: Map<number, ReleaseInventory>;
}

/**
 * One logical inventory from part 0 and the other parts read beside it (any order; objects that are
 * not parts of `head` are ignored). An entry present in two parts (a write that moved it died
 * half-way) counts in the lowest.
 */
export function mergeParts(head: ReleaseInventory, others: readonly ReleaseInventory[]): MergedInventory {
  const release = head.metadata.name ?? '';
  const objects = new Map<number, ReleaseInventory>([[0, head]]);
  for (const o of others) {
    const index = partIndexOf(release, o.metadata.name ?? '');
    if (index !== undefined && index > 0) objects.set(index, o);
  }
  const parts = new Map<string, number>();
  const entries: InventoryEntry[] = [];
  for (const index of [...objects.keys()].sort((a, b) => a - b)) {
    for (const e of objects.get(index)?.entries ?? []) {
      const key = keyOf(e);
      if (parts.has(key)) continue;
      parts.set(key, index);
      entries.push(e);
    }
  }
  return { inventory: { ...head, entries }, parts, objects };
}
