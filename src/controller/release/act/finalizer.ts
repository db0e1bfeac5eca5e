// The Release's finalizer and the inventory's protection finalizer (docs/design.md#deletion): added
// before the first apply, removed when deletion.ts has dropped the records, and given up for an inventory
// whose Release is gone.
import { API_VERSION, FINALIZER, INVENTORY_FINALIZER } from '../../../api/constants.ts';
import type { Release } from '../../../api/types.ts';
import type { KubeClient } from '../../../kube/client.ts';
import { removeFinalizerOf } from '../../../kube/finalizers.ts';
import { nameOf, namespaceOf } from '../../../lib/names.ts';
import type { ReleaseDeps } from '../deps.ts';

const releaseRef = (r: Release) => ({
  apiVersion: API_VERSION,
  kind: 'Release',
  namespace: namespaceOf(r),
  name: nameOf(r),
});

/** JSON patch guarded by a test of the current list, so a concurrent change fails (and is retried). */
export async function addFinalizer(client: KubeClient, release: Release): Promise<Release> {
  const current = release.metadata.finalizers;
  const body =
    current === undefined || current.length === 0
      ? [{ op: 'add', path: '/metadata/finalizers', value: [FINALIZER] }]
      : [
          { op: 'test', path: '/metadata/finalizers', value: current },
          { op: 'add', path: '/metadata/finalizers/-', value: FINALIZER },
        ];
  return await client.request<Release>({
    method: 'PATCH',
    path: await client.pathOf(releaseRef(release)),
    contentType: 'application/json-patch+json',
    body,
  });
}

export async function removeFinalizer(client: KubeClient, release: Release): Promise<void> {
  await removeFinalizerOf(client, releaseRef(release), FINALIZER);
}

/**
 * An inventory the garbage collector is deleting because its Release is gone (its finalizer was removed
 * by hand, or it was deleted and created again): nothing can prune what it lists any more, so its
 * protection finalizer goes and the objects stay, as they do when a Release's finalizer is removed.
 * While its Release is still being deleted the Release's own finalizer does this, after the prune.
 */
export async function releaseInventoryOfGoneRelease(
  namespace: string,
  name: string,
  release: Release | undefined,
  deps: Pick<ReleaseDeps, 'local' | 'cachedInventory' | 'log'>,
): Promise<void> {
  const dying = [...(deps.cachedInventory(namespace, name)?.objects.values() ?? [])].filter(
    (o) => o.metadata.deletionTimestamp !== undefined && o.metadata.finalizers?.includes(INVENTORY_FINALIZER),
  );
  let live: Release | undefined | 'unread' = 'unread';
  for (const inv of dying) {
    const owner = inv.metadata.ownerReferences?.find((o) => o.kind === 'Release')?.uid;
    if (release !== undefined && release.metadata.uid === owner) continue;
    // The cache may lag behind the API: only the API saying the owner is gone gives up the inventory.
    if (live === 'unread')
      live = await deps.local.get<Release>({ apiVersion: API_VERSION, kind: 'Release', namespace, name });
    if (live !== undefined && live.metadata.uid === owner) continue;
    const part = inv.metadata.name ?? name;
    const ref = { apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace, name: part };
    if (await removeFinalizerOf(deps.local, ref, INVENTORY_FINALIZER))
      deps.log.info(
        { inventory: `${namespace}/${part}` },
        'released the inventory of a Release that is gone',
      );
  }
}

/** The Release with convoy's finalizer: added before the first apply, so PreDelete hooks and the prune run before it goes. */
export async function ensureFinalizer(
  release: Release,
  deps: Pick<ReleaseDeps, 'local' | 'noteWritten'>,
): Promise<Release> {
  if ((release.metadata.finalizers ?? []).includes(FINALIZER)) return release;
  const patched = await addFinalizer(deps.local, release);
  deps.noteWritten?.(release, patched);
  return patched;
}
