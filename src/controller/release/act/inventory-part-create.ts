// Creating a part of a ReleaseInventory and the metadata every part carries
// (docs/design.md#inventory-parts): a part the last read did not find is created with a plain create
// first, so a Release named like another's part never writes into it, nor the other way round.
import { API_VERSION, FIELD_MANAGERS, INVENTORY_FINALIZER } from '../../../api/constants.ts';
import type { Release, ReleaseInventory } from '../../../api/types.ts';
import type { KubeClient } from '../../../kube/client.ts';
import { isAlreadyExists } from '../../../kube/errors.ts';
import { inventoryLabelValue, LABEL_INVENTORY_OF, partName } from '../../../kube/inventory-parts.ts';

/** An inventory object of the same name that belongs to another Release (or to nothing convoy wrote). */
export class InventoryNameTakenError extends Error {
  override name = 'InventoryNameTakenError';
}

/** Metadata every part carries: the protection finalizer, the Release as owner, the label on 1…N. */
export function partMetadata(
  release: Release,
  index: number,
  stored: ReleaseInventory | undefined,
): ReleaseInventory['metadata'] {
  const { name = '', namespace = '', uid = '' } = release.metadata;
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

/**
 * Creates a part that the last read did not find, with its metadata only (the apply fills it). An
 * object already there is taken only when it is this Release's: a Release named like another's part
 * (`shop-part-1`) must never write into that part, nor the other way round.
 */
export async function createPart(
  client: KubeClient,
  release: Release,
  index: number,
): Promise<ReleaseInventory> {
  const metadata = partMetadata(release, index, undefined);
  try {
    return await client.create<ReleaseInventory>(
      { apiVersion: API_VERSION, kind: 'ReleaseInventory', metadata },
      { fieldManager: FIELD_MANAGERS.controller },
    );
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  const ref = { apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace: metadata.namespace ?? '' };
  const live = await client.get<ReleaseInventory>({ ...ref, name: metadata.name ?? '' });
  const owner = live?.metadata.ownerReferences?.find((o) => o.kind === 'Release')?.uid;
  const label = live?.metadata.labels?.[LABEL_INVENTORY_OF];
  const ours = owner === release.metadata.uid && label === metadata.labels?.[LABEL_INVENTORY_OF];
  if (live === undefined || !ours)
    throw new InventoryNameTakenError(
      `ReleaseInventory ${metadata.namespace}/${metadata.name} (part ${index} of the inventory of Release ` +
        `${release.metadata.name}) exists and belongs to ${label === undefined ? `Release ${metadata.name}` : `the inventory of another Release (${LABEL_INVENTORY_OF}=${label})`}; rename one of the Releases`,
    );
  return live;
}
