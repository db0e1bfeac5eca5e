// Deletion of a Release behind its finalizer, one step per call of deletionPlan: PreDelete hooks, prune
// everything in the inventory (deletionPolicy Orphan keeps the objects; prune: disabled keeps one),
// PostDelete hooks, then delete the hook workloads, the inventory and the render Secrets and remove the
// finalizer. Each hook phase waits for the observer's terminal state; its /sync on a finished hook brings
// the next step. No planRollout, no applyLastHealthy, no deadline requeue. The target is resolved only for
// a step that calls it; when it cannot be reached, deletion-target.ts decides between waiting (a condition
// and an Event naming why) and leaving the objects (the orphan annotation, or a namespace being deleted
// that took its Cluster along).
import { ANNOTATION_DELETION_POLICY, DELETION_POLICY_ORPHAN } from '../../../api/constants.ts';
import type { ReadyReason, Release } from '../../../api/types.ts';
import { type MergedInventory, partName } from '../../../kube/inventory-parts.ts';
import { deleteInventoryObject } from '../../../kube/inventory-read.ts';
import { assertNever } from '../../../lib/assert-never.ts';
import { nameOf, namespaceOf } from '../../../lib/names.ts';
import type { Render } from '../../../render/types.ts';
import type { ReconcileResult } from '../../../runtime/index.ts';
import { decideUnreachable, stepNeedsTarget } from '../decide/deletion-target.ts';
import { type DeletionStep, deletionPlan, forcedAtOf } from '../decide/hooks/index.ts';
import { releaseStatus } from '../decide/status.ts';
import { crdsKeptNote } from '../decide/sync/index.ts';
import type { ReleaseDeps } from '../deps.ts';
import { HookFailedError, ReleaseError } from '../errors.ts';
import { noAttempt, noRollout, type Outcome } from '../outcome.ts';
import { requeueAfterPass } from '../watch/requeue.ts';
import { eventsFor, recordEvents } from './events.ts';
import { removeFinalizer } from './finalizer.ts';
import { armHooks, cleanUp, deleteHookWorkloads, hookWorkloadOptions } from './hooks/index.ts';
import { readInventory } from './inventory-open.ts';
import { InventoryWriter } from './inventory-writer.ts';
import { pruneEntries } from './prune.ts';
import type { Target } from './target.ts';
import { verificationJobsStep } from './verification-jobs.ts';
import { CONFLICT_REQUEUE_MS, writeReleaseStatus } from './write-status.ts';

export type FinalizeResult =
  /** The finalizer is removed: the Release goes (with `orphaned`: leaving its objects, saying why). */
  | { readonly kind: 'finalized'; readonly deleted: number; readonly orphaned?: string }
  /** The target cannot be reached: retried with backoff, Ready=False with this reason and message. */
  | { readonly kind: 'waiting'; readonly reason: ReadyReason; readonly message: string }
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
  const hooks = await deps.store.hooks(namespaceOf(release), nameOf(release), ref);
  return hooks === undefined ? undefined : { renderRef: ref, hooks };
}

/** A deletion that cannot go on because of its target: the Ready reason it shows while it waits. */
export class DeletionBlockedError extends ReleaseError {
  override name = 'DeletionBlockedError';
  readonly reason: ReadyReason;
  constructor(reason: ReadyReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

export async function finalize(release: Release, deps: ReleaseDeps): Promise<FinalizeResult> {
  const policy = release.spec.deletionPolicy ?? 'Delete';
  const render = await deletionRender(release, deps);
  const forcedAt = forcedAtOf(release);
  const opts = hookWorkloadOptions(release);
  const notes: string[] = [];
  let deleted = 0;
  let resolved: Target | undefined;
  // A prune empties the inventory's entries, so the plan moves past it: two rounds suffice, three is slack.
  for (let round = 0; round < 3; round++) {
    const parts = await readInventory(deps.local, release);
    const inv = parts?.inventory;
    const step = deletionPlan({
      render,
      hookEntries: inv?.hooks ?? [],
      // pending: noted by a sync that never recorded them (crashed or failed): pruned all the same
      objectEntries: (inv?.entries?.length ?? 0) + (inv?.pending?.length ?? 0),
      deletionPolicy: policy,
      forcedAt,
      now: deps.now(),
    });
    let target: Target | undefined = resolved;
    if (release.metadata.annotations?.[ANNOTATION_DELETION_POLICY] === DELETION_POLICY_ORPHAN) {
      // Given up by a person: nothing on the target is touched, reachable or not.
      return await orphan(
        release,
        deps,
        parts,
        'annotation convoy.kumodo.io/deletion-policy=orphan',
        undefined,
      );
    }
    if (target === undefined && stepNeedsTarget(step, policy)) {
      try {
        target = await deps.resolveTarget(release);
        resolved = target;
      } catch (err) {
        return await unreachable(release, deps, parts, err);
      }
    }
    try {
      const done = await carryOut(step, { release, deps, parts, target, notes, policy, opts });
      if (done.kind !== 'pruned') return done.kind === 'finalized' ? { ...done, deleted } : done;
      deleted += done.deleted;
    } catch (err) {
      // The target answered, but not as a deletion needs (forbidden, unreachable midway, a webhook).
      if (target === undefined || err instanceof DeletionBlockedError) throw err;
      return await unreachable(release, deps, parts, err, 'PruneFailed', target.name);
    }
  }
  throw new Error('deletion: the inventory still has entries after pruning them');
}

/** What one deletion step works with. */
interface StepContext {
  readonly release: Release;
  readonly deps: ReleaseDeps;
  readonly parts: MergedInventory | undefined;
  readonly target: Target | undefined;
  readonly notes: string[];
  readonly policy: 'Delete' | 'Orphan';
  readonly opts: ReturnType<typeof hookWorkloadOptions>;
}

/** Carries out one step of deletionPlan: a result for the pass, or `pruned` to plan again. */
async function carryOut(
  step: DeletionStep,
  c: StepContext,
): Promise<FinalizeResult | { readonly kind: 'pruned'; readonly deleted: number }> {
  const { notes, opts } = c;
  switch (step.kind) {
    case 'armHooks': {
      await armHooks(
        need(c.target).client,
        new InventoryWriter(c.deps.local, c.release, c.parts),
        step.hooks,
        opts,
      );
      const message = `running ${step.phase} hooks: ${step.hooks.map((h) => h.hook.name).join(', ')}`;
      return { kind: 'deleting', message, notes: [...notes, message] };
    }
    case 'waitHooks':
      if (step.cleanup.length > 0) notes.push(...(await cleanUp(need(c.target).client, step.cleanup, opts)));
      return {
        kind: 'deleting',
        message: `waiting for ${step.phase} hooks: ${step.running.join(', ')}`,
        notes,
      };
    case 'blocked':
      if (step.cleanup.length > 0) notes.push(...(await cleanUp(need(c.target).client, step.cleanup, opts)));
      return { kind: 'blocked', message: step.message, notes };
    case 'prune':
      if (step.cleanup.length > 0) notes.push(...(await cleanUp(need(c.target).client, step.cleanup, opts)));
      // The Jobs of job checks go with the objects (docs/design.md#verification).
      if (c.target !== undefined)
        notes.push(...(await verificationJobsStep(c.release, c.target, c.parts?.inventory)));
      return { kind: 'pruned', deleted: await pruneAll(c) };
    case 'finalize':
      if (step.cleanup.length > 0) {
        // A hook workload that could not be deleted is retried before the record of it goes.
        const target = need(c.target);
        const { errors } = await deleteHookWorkloads(target.client, step.cleanup, opts.defaultNamespace);
        if (errors[0] !== undefined) throw errors[0];
      }
      await dropRecords(c.release, c.deps, c.parts);
      return { kind: 'finalized', deleted: 0 };
    default:
      return assertNever(step);
  }
}

/**
 * Prunes every entry (Orphan reads and deletes nothing, so its target need not be resolved): a recorded
 * entry is convoy's unless another Release's uid is on it now; a pending one (noted by a sync that never
 * recorded it) only when its own uid is. Every entry leaves, deleted or kept, so the next round sees an
 * inventory with nothing to prune. Returns how many objects were deleted.
 */
async function pruneAll(c: StepContext): Promise<number> {
  const inv = c.parts?.inventory;
  const entries = inv?.entries ?? [];
  const plan = await pruneEntries(c.target, {
    recorded: entries,
    pending: inv?.pending ?? [],
    policy: { deletionPolicy: c.policy },
    pruneCRDs: c.release.spec.syncPolicy?.pruneCRDs === true,
    readLive: c.policy === 'Delete',
    releaseUid: c.release.metadata.uid ?? '',
  });
  const writer = new InventoryWriter(c.deps.local, c.release, c.parts);
  await writer.remove(entries);
  if (writer.pending.length > 0) await writer.record([], writer.pending);
  if (plan.crdsKept > 0) c.notes.push(crdsKeptNote(plan.crdsKept));
  return plan.toDelete.length;
}

function need(target: Target | undefined): Target {
  if (target === undefined) throw new Error('deletion: a step that calls the target ran without it');
  return target;
}

/**
 * The inventory (parts 1…N first, part 0 last, so a crash in between leaves part 0 to find the rest by),
 * the render Secrets and the finalizer: what convoy keeps about a Release, dropped.
 */
async function dropRecords(release: Release, deps: ReleaseDeps, inv: MergedInventory | undefined) {
  const ns = namespaceOf(release);
  const name = nameOf(release);
  const parts = [...(inv?.objects.keys() ?? [])].sort((a, b) => b - a);
  for (const index of parts) await deleteInventoryObject(deps.local, ns, partName(name, index));
  await deps.store.deleteAll(ns, name);
  await removeFinalizer(deps.local, release);
}

async function orphan(
  release: Release,
  deps: ReleaseDeps,
  parts: MergedInventory | undefined,
  why: string,
  message: string | undefined,
): Promise<FinalizeResult> {
  await dropRecords(release, deps, parts);
  const objects = parts?.inventory.entries?.length ?? 0;
  const hooks = parts?.inventory.hooks?.length ?? 0;
  return {
    kind: 'finalized',
    deleted: 0,
    orphaned: message ?? `deletion left ${objects} objects and ${hooks} hook workloads in place (${why})`,
  };
}

/** The target could not be used: wait (a DeletionBlockedError's condition) or orphan, as decided. */
async function unreachable(
  release: Release,
  deps: ReleaseDeps,
  parts: MergedInventory | undefined,
  err: unknown,
  fallbackReason: ReadyReason = 'ClusterNotReady',
  targetName = release.spec.cluster?.name ?? 'local',
): Promise<FinalizeResult> {
  const ns = namespaceOf(release);
  const namespace = await deps.local.get<{ metadata: { deletionTimestamp?: string } }>({
    apiVersion: 'v1',
    kind: 'Namespace',
    name: ns,
  });
  const decision = decideUnreachable({
    orphanRequested: release.metadata.annotations?.[ANNOTATION_DELETION_POLICY] === DELETION_POLICY_ORPHAN,
    namespaceTerminating: namespace?.metadata.deletionTimestamp !== undefined,
    failure: {
      reason: err instanceof ReleaseError ? err.reason : fallbackReason,
      message: err instanceof Error ? err.message : String(err),
    },
    target: targetName,
    objects: parts?.inventory.entries?.length ?? 0,
    hookWorkloads: parts?.inventory.hooks?.length ?? 0,
  });
  if (decision.kind === 'orphan') return await orphan(release, deps, parts, '', decision.message);
  return { kind: 'waiting', reason: decision.reason, message: decision.message };
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
    deps.log.info({ deleted: result.deleted, orphaned: result.orphaned }, 'release finalized');
    if (result.orphaned !== undefined)
      recordEvents(deps, release, [{ type: 'Warning', reason: 'Orphaned', message: result.orphaned }]);
    return { kind: 'done' };
  }
  const outcome: Outcome = {
    result:
      result.kind === 'deleting'
        ? { kind: 'deleting', message: result.message }
        : result.kind === 'waiting'
          ? { kind: 'failed', error: new DeletionBlockedError(result.reason, result.message) }
          : { kind: 'failed', error: new HookFailedError(result.message) },
    attempt: noAttempt,
    rollout: noRollout,
    notes: result.kind === 'waiting' ? [] : result.notes,
  };
  const now = deps.now();
  const status = releaseStatus(release, outcome, now);
  try {
    if ((await writeReleaseStatus(release, status, deps)) === 'conflict')
      return { kind: 'requeueAfter', ms: CONFLICT_REQUEUE_MS };
  } catch (error) {
    return { kind: 'error', error };
  }
  recordEvents(deps, release, eventsFor(release.status?.conditions, status.conditions, outcome.notes), now);
  // Waiting for a target: error backoff, so a Cluster that comes back is tried again soon, a lasting
  // outage less and less often.
  if (result.kind === 'waiting')
    return { kind: 'error', error: new DeletionBlockedError(result.reason, result.message) };
  return requeueAfterPass(release, status, now, true);
}
