// Reading a ReleaseInventory whole: part 0 and the parts labelled for its Release
// (docs/design.md#inventory-parts), from the API (one GET and one LIST) or from an informer cache, and
// removing a part object for good. Every reader — the controller, the observer, the CLI and the HTTP
// API — goes through here, so none of them sees only part 0 of a large Release.
import { API_VERSION, INVENTORY_FINALIZER } from '../api/constants.ts';
import type { ReleaseInventory } from '../api/types.ts';
import { namespaceOf } from '../lib/names.ts';
import type { KubeClient } from './client.ts';
import { removeFinalizerOf } from './finalizers.ts';
import {
  inventoryLabelValue,
  isPartObject,
  LABEL_INVENTORY_OF,
  type MergedInventory,
  mergeParts,
  releaseNameOf,
} from './inventory-parts.ts';

export interface InventoryRef {
  readonly namespace: string;
  /** The Release's name (and part 0's). */
  readonly name: string;
}

const inventoryRef = (namespace: string, name: string) => ({
  apiVersion: API_VERSION,
  kind: 'ReleaseInventory',
  namespace,
  name,
});

/** The label selector of the parts 1…N of a Release's inventory. */
export function partSelector(release: string): string {
  return `${LABEL_INVENTORY_OF}=${inventoryLabelValue(release)}`;
}

/**
 * The whole inventory from its pieces: part 0 (undefined when absent, or when the object of that name is
 * a part of another Release's inventory) and the labelled parts. Undefined when there is neither.
 */
export function assembleInventory(
  ref: InventoryRef,
  head: ReleaseInventory | undefined,
  parts: readonly ReleaseInventory[],
): MergedInventory | undefined {
  const own = head !== undefined && !isPartObject(head) ? head : undefined;
  const merged = mergeParts(own, parts, ref);
  return merged.objects.size === 0 ? undefined : merged;
}

/** The inventory of Release `ref` as the API has it now: GET of part 0 and one LIST of the parts. */
export async function readInventoryParts(
  client: KubeClient,
  ref: InventoryRef,
): Promise<MergedInventory | undefined> {
  const [head, parts] = await Promise.all([
    client.get<ReleaseInventory>(inventoryRef(ref.namespace, ref.name)),
    client.list<ReleaseInventory>(
      { apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace: ref.namespace },
      { labelSelector: partSelector(ref.name) },
    ),
  ]);
  return assembleInventory(ref, head, parts);
}

/**
 * Deletes one inventory object and takes off its protection finalizer (the object is convoy's own
 * record: nothing else waits on it). False when it was already gone.
 */
export async function deleteInventoryObject(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<boolean> {
  const ref = inventoryRef(namespace, name);
  const live = await client.get<ReleaseInventory>(ref);
  if (live === undefined) return false;
  if (live.metadata.deletionTimestamp === undefined) await client.delete(ref);
  await removeFinalizerOf(client, ref, INVENTORY_FINALIZER);
  return true;
}

/** Index of an informer of ReleaseInventories: a part 1…N under `<namespace>/<label value>`. */
export const BY_INVENTORY_OF = 'convoy:inventory-of';
export function inventoryOfIndex(o: Pick<ReleaseInventory, 'metadata'>): string[] {
  const label = o.metadata.labels?.[LABEL_INVENTORY_OF];
  return label === undefined ? [] : [`${namespaceOf(o)}/${label}`];
}

/** The key under which the parts of Release `namespace/name` are indexed (BY_INVENTORY_OF). */
export function partsIndexKey(namespace: string, name: string): string {
  return `${namespace}/${inventoryLabelValue(name)}`;
}

/** The `namespace/name` key of the Release an inventory object (any part) belongs to; undefined: none. */
export function releaseKeyOfInventory(o: Pick<ReleaseInventory, 'metadata'>): string | undefined {
  const name = releaseNameOf(o);
  return name === undefined ? undefined : `${namespaceOf(o)}/${name}`;
}
