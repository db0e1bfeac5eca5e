// "group/kind/namespace/name": the one string form of an object's identity (the list-map keys of an
// inventory entry; empty parts kept, "/ConfigMap/prod/settings"). Unambiguous because none of the four
// may contain a slash. Every layer keys maps and sets by it.
import type { InventoryEntry } from './types.ts';

/** The list-map keys of an inventory entry; a cluster-scoped object's namespace is "" (or absent). */
export type EntryKeys = Pick<InventoryEntry, 'group' | 'kind' | 'name'> & { readonly namespace?: string };

/** "group/kind/namespace/name": the list-map key of an inventory entry as one string. */
export function inventoryKeyOf(o: EntryKeys): string {
  return `${o.group}/${o.kind}/${o.namespace ?? ''}/${o.name}`;
}
