// What stageSync writes to the ReleaseInventory: the entries of an applied wave, and the
// entries to take out. Removals need their own explicit patch because fields another manager
// (health, drift) owns would keep a list-map item alive after a plain apply leaves it out.
import type { InventoryEntry, InventoryKey } from '../../../../api/types.ts';
import { keyString, objectKey } from '../../../../render/keys.ts';
import type { Obj } from '../../../../render/types.ts';

/** "apps/v1" → "v1", "v1" → "v1". */
export function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

export function entryKey(e: InventoryKey): string {
  return keyString({ group: e.group, kind: e.kind, namespace: e.namespace, name: e.name });
}

/** The controller-owned fields of the entries for one applied wave. */
export function inventoryEntriesForWave(
  objects: readonly Obj[],
  renderRef: string,
  wave: number,
  applied?: AppliedVersions,
): InventoryEntry[] {
  return objects.map((obj) => inventoryEntryOf(obj, renderRef, wave, applied));
}

/** The controller-owned fields of the entry recording `obj` as applied by `renderRef` in `wave`. */
export function inventoryEntryOf(
  obj: Obj,
  renderRef: string,
  wave: number,
  applied?: AppliedVersions,
): InventoryEntry {
  const rv = applied?.get(obj);
  return {
    ...objectKey(obj),
    version: versionOf(obj.apiVersion),
    wave,
    renderRef,
    ...(rv === undefined ? {} : { appliedResourceVersion: rv }),
  };
}

/** The resourceVersion each applied object's apply returned, by the render's object. */
export type AppliedVersions = ReadonlyMap<Obj, string>;

/**
 * What a deployer's onApplied reports, collected: the objects the API accepted, in order, and the
 * resourceVersion each apply returned (for the entries that record them).
 */
export function appliedCollector(): {
  readonly applied: readonly Obj[];
  readonly versions: AppliedVersions;
  readonly onApplied: (obj: Obj, resourceVersion: string | undefined) => void;
} {
  const applied: Obj[] = [];
  const versions = new Map<Obj, string>();
  return {
    applied,
    versions,
    onApplied: (obj, rv) => {
      applied.push(obj);
      if (rv !== undefined) versions.set(obj, rv);
    },
  };
}

/** The entries of `current` whose key is not in `desiredKeys` (keyString form). */
export function inventoryRemovals(
  current: readonly InventoryEntry[],
  desiredKeys: ReadonlySet<string>,
): InventoryEntry[] {
  return current.filter((e) => !desiredKeys.has(entryKey(e)));
}
