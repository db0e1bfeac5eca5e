// Deletion of a Release behind its finalizer, one step per call of deletionPlan: PreDelete hooks, prune
// everything in the inventory (deletionPolicy Orphan keeps the objects; prune: disabled keeps one),
// PostDelete hooks, then delete the hook workloads, the inventory and the render Secrets and remove the
// finalizer. Each hook phase waits for the observer's terminal state; its /sync on a finished hook brings
// the next step. No planRollout, no applyLastHealthy, no deadline requeue.
import { API_VERSION, FIELD_MANAGERS, FINALIZER, INVENTORY_FINALIZER } from '../../api/constants.ts';
import type { Release } from '../../api/types.ts';
import type { KubeClient } from '../../kube/client.ts';
import { removeFinalizerOf } from '../../kube/finalizers.ts';
import { removeInventoryItems } from '../../kube/inventory.ts';
import type { Render } from '../../render/types.ts';
import type { ReconcileResult } from '../../runtime/index.ts';
import type { ReleaseDeps } from './deps.ts';
import { HookFailedError } from './errors.ts';
import { emitEvents, eventsFor } from './events.ts';
import {
  armHooks,
  cleanUp,
  deleteHookWorkloads,
  deletionPlan,
  forcedAtOf,
  hookWorkloadOptions,
} from './hooks/index.ts';
import { InventoryWriter, readInventory } from './inventory-writer.ts';
import { noAttempt, noRollout, type Outcome } from './outcome.ts';
import { nextWakeUp } from './rollout/index.ts';
import { deleteEntry, pruneDisabled } from './stage-sync.ts';
import { releaseStatus } from './status.ts';
import { entryKey, pruneSet } from './sync/index.ts';
import { CONFLICT_REQUEUE_MS, writeReleaseStatus } from './write-status.ts';

export type FinalizeResult =
  /** The finalizer is removed: the Release goes. */
  | { readonly kind: 'finalized'; readonly deleted: number }
  /** Delete hooks were armed or are running; the observer's /sync brings the next step. */
  | { readonly kind: 'deleting'; readonly message: string; readonly notes: readonly string[] }
  /** A delete hook failed: only a forced sync (or removing the finalizer) moves it on. */
  | { readonly kind: 'blocked'; readonly message: string; readonly notes: readonly string[] };

/** The render whose delete hooks run: the last one applied, from the render store (never the source). */
async function deletionRender(
  release: Release,
  deps: ReleaseDeps,
): Promise<{ renderRef: string; hooks: Render['hooks'] } | undefined> {
  const ref = release.status?.lastSuccessful?.renderRef ?? release.status?.lastAttempted?.renderRef;
  if (ref === undefined) return undefined;
  const render = await deps.store.get(release.metadata.namespace ?? '', release.metadata.name ?? '', ref);
  return render === undefined ? undefined : { renderRef: ref, hooks: render.hooks };
}

export async function finalize(release: Release, deps: ReleaseDeps): Promise<FinalizeResult> {
  const ns = release.metadata.namespace ?? '';
  const name = release.metadata.name ?? '';
  const target = await deps.resolveTarget(release);
  const ref = { apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace: ns, name };
  const policy = release.spec.deletionPolicy ?? 'Delete';
  const render = await deletionRender(release, deps);
  const forcedAt = forcedAtOf(release);
  const opts = hookWorkloadOptions(release);
  const notes: string[] = [];
  let deleted = 0;
  // A prune empties the inventory's entries, so the plan moves past it: two rounds suffice, three is slack.
  for (let round = 0; round < 3; round++) {
    const inv = await readInventory(deps.local, release);
    const step = deletionPlan({
      render,
      hookEntries: inv?.hooks ?? [],
      objectEntries: inv?.entries?.length ?? 0,
      deletionPolicy: policy,
      forcedAt,
      now: deps.now(),
    });
    switch (step.kind) {
      case 'armHooks': {
        await armHooks(target.client, new InventoryWriter(deps.local, release, inv), step.hooks, opts);
        const message = `running ${step.phase} hooks: ${step.hooks.map((h) => h.hook.name).join(', ')}`;
        return { kind: 'deleting', message, notes: [...notes, message] };
      }
      case 'waitHooks':
        notes.push(...(await cleanUp(target.client, step.cleanup, opts)));
        return {
          kind: 'deleting',
          message: `waiting for ${step.phase} hooks: ${step.running.join(', ')}`,
          notes,
        };
      case 'blocked':
        notes.push(...(await cleanUp(target.client, step.cleanup, opts)));
        return { kind: 'blocked', message: step.message, notes };
      case 'prune': {
        notes.push(...(await cleanUp(target.client, step.cleanup, opts)));
        const entries = inv?.entries ?? [];
        const disabled =
          policy === 'Delete' ? await pruneDisabled(target.readClient, entries) : new Set<string>();
        const plan = pruneSet(entries, new Set(), {
          prune: true,
          isPruneDisabled: (k) => disabled.has(entryKey(k)),
          deletion: { deletionPolicy: policy },
        });
        for (const e of plan.toDelete) await deleteEntry(target.client, e);
        deleted += plan.toDelete.length;
        // Every entry leaves, deleted or kept, so the next round sees an inventory with nothing to prune.
        await removeInventoryItems(deps.local, { namespace: ns, name }, entries, [], {
          fieldManager: FIELD_MANAGERS.controller,
        });
        continue;
      }
      case 'finalize': {
        // A hook workload that could not be deleted is retried before the record of it goes.
        const { errors } = await deleteHookWorkloads(target.client, step.cleanup, opts.defaultNamespace);
        if (errors[0] !== undefined) throw errors[0];
        if (inv !== undefined) {
          await deps.local.delete(ref);
          await removeFinalizerOf(deps.local, ref, INVENTORY_FINALIZER);
        }
        await deps.store.deleteAll(ns, name);
        await removeFinalizer(deps.local, release);
        return { kind: 'finalized', deleted };
      }
      default:
        return assertNever(step);
    }
  }
  throw new Error('deletion: the inventory still has entries after pruning them');
}

/**
 * The deletion branch of syncHandler: one finalize step, with its progress in Ready (Unknown, Deleting
 * while hooks run; False, HookFailed when a delete hook blocks the deletion).
 */
export async function deletionHandler(release: Release, deps: ReleaseDeps): Promise<ReconcileResult> {
  let result: FinalizeResult;
  try {
    result = await finalize(release, deps);
  } catch (error) {
    return { kind: 'error', error };
  }
  if (result.kind === 'finalized') {
    deps.log.info({ deleted: result.deleted }, 'release finalized');
    return { kind: 'done' };
  }
  const outcome: Outcome = {
    result:
      result.kind === 'deleting'
        ? { kind: 'deleting', message: result.message }
        : { kind: 'failed', error: new HookFailedError(result.message) },
    attempt: noAttempt,
    rollout: noRollout,
    notes: result.notes,
  };
  const now = deps.now();
  const status = releaseStatus(release, outcome, now);
  try {
    if ((await writeReleaseStatus(release, status, deps)) === 'conflict')
      return { kind: 'requeueAfter', ms: CONFLICT_REQUEUE_MS };
  } catch (error) {
    return { kind: 'error', error };
  }
  try {
    await emitEvents(
      deps.local,
      release,
      eventsFor(release.status?.conditions, status.conditions, result.notes),
      now,
    );
  } catch (err) {
    deps.log.warn({ err: String(err) }, 'could not record events');
  }
  const wake = nextWakeUp({
    rollout: status.rollout,
    failurePolicy: release.spec.failurePolicy,
    pinned: release.spec.pin !== undefined,
    deleting: true,
    interval: release.spec.syncPolicy?.interval,
    now,
  });
  return wake.kind === 'requeue' ? { kind: 'requeueAfter', ms: wake.afterMs } : { kind: 'done' };
}

function assertNever(x: never): never {
  throw new Error(`unexpected ${JSON.stringify(x)}`);
}

const releaseRef = (r: Release) => ({
  apiVersion: API_VERSION,
  kind: 'Release',
  namespace: r.metadata.namespace ?? '',
  name: r.metadata.name ?? '',
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
  const inv = deps.cachedInventory(namespace, name);
  if (inv?.metadata.deletionTimestamp === undefined) return;
  if (!inv.metadata.finalizers?.includes(INVENTORY_FINALIZER)) return;
  const owner = inv.metadata.ownerReferences?.find((o) => o.kind === 'Release')?.uid;
  if (release !== undefined && release.metadata.uid === owner) return;
  // The cache may lag behind the API: only the API saying the owner is gone gives up the inventory.
  const live = await deps.local.get<Release>({ apiVersion: API_VERSION, kind: 'Release', namespace, name });
  if (live !== undefined && live.metadata.uid === owner) return;
  const ref = { apiVersion: API_VERSION, kind: 'ReleaseInventory', namespace, name };
  if (await removeFinalizerOf(deps.local, ref, INVENTORY_FINALIZER))
    deps.log.info({ inventory: `${namespace}/${name}` }, 'released the inventory of a Release that is gone');
}
