// Deletion of a Release behind its finalizer: prune everything in the inventory (deletionPolicy Orphan
// keeps the objects; prune: disabled keeps one), delete the inventory and the render Secrets, then
// remove the finalizer. No planRollout, no applyLastHealthy, no deadline requeue.
import { API_VERSION, FINALIZER } from '../../api/constants.ts';
import type { Release, ReleaseInventory } from '../../api/types.ts';
import type { KubeClient } from '../../kube/client.ts';
import type { ReleaseDeps } from './deps.ts';
import { deleteEntry, pruneDisabled } from './stage-sync.ts';
import { entryKey, pruneSet } from './sync/index.ts';

export async function finalize(release: Release, deps: ReleaseDeps): Promise<{ deleted: number }> {
  const ns = release.metadata.namespace ?? '';
  const name = release.metadata.name ?? '';
  const target = await deps.resolveTarget(release);
  // HOOKS SLOT (issue "hooks"): PreDelete hooks run here; only armed hooks are waited for.
  const ref = { apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace: ns, name };
  const inv = await deps.local.get<ReleaseInventory>(ref);
  const entries = inv?.entries ?? [];
  const policy = release.spec.deletionPolicy ?? 'Delete';
  const disabled = policy === 'Delete' ? await pruneDisabled(target.readClient, entries) : new Set<string>();
  const plan = pruneSet(entries, new Set(), {
    prune: true,
    isPruneDisabled: (k) => disabled.has(entryKey(k)),
    deletion: { deletionPolicy: policy },
  });
  for (const e of plan.toDelete) await deleteEntry(target.client, e);
  // HOOKS SLOT (issue "hooks"): PostDelete hooks run here.
  if (inv !== undefined) await deps.local.delete(ref);
  await deps.store.deleteAll(ns, name);
  await removeFinalizer(deps.local, release);
  return { deleted: plan.toDelete.length };
}

const releaseRef = (r: Release) => ({
  apiVersion: API_VERSION,
  kind: 'Release',
  namespace: r.metadata.namespace ?? '',
  name: r.metadata.name ?? '',
});

/** JSON patch guarded by a test of the current list, so a concurrent change fails (and is retried). */
export async function addFinalizer(client: KubeClient, release: Release): Promise<void> {
  const current = release.metadata.finalizers;
  const body =
    current === undefined || current.length === 0
      ? [{ op: 'add', path: '/metadata/finalizers', value: [FINALIZER] }]
      : [
          { op: 'test', path: '/metadata/finalizers', value: current },
          { op: 'add', path: '/metadata/finalizers/-', value: FINALIZER },
        ];
  await client.request({
    method: 'PATCH',
    path: await client.pathOf(releaseRef(release)),
    contentType: 'application/json-patch+json',
    body,
  });
}

export async function removeFinalizer(client: KubeClient, release: Release): Promise<void> {
  const live = await client.get<Release>(releaseRef(release));
  const list = live?.metadata.finalizers ?? [];
  const i = list.indexOf(FINALIZER);
  if (live === undefined || i < 0) return;
  await client.request({
    method: 'PATCH',
    path: await client.pathOf(releaseRef(release)),
    contentType: 'application/json-patch+json',
    body: [
      { op: 'test', path: `/metadata/finalizers/${i}`, value: FINALIZER },
      { op: 'remove', path: `/metadata/finalizers/${i}` },
    ],
  });
}
