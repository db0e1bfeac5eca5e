// stageSync: dry run of the whole render → persist (render store + the attempt) → [hooks slot] → settle
// what an interrupted sync left pending → waves (note the wave's keys as pending in the inventory, apply,
// then record them and stamp status.waves) → prune. A render that is already
// applied, recorded and pruned is not synced again unless a forced sync is pending (or, with selfHeal,
// the drift loop flagged an entry), so a steady reconcile writes nothing; nor are its waves applied again
// while the sync of R holds for its PostSync hooks after applying all of R.
import {
  ANNOTATION_PRUNE,
  ANNOTATION_RELEASE_UID,
  API_VERSION,
  PRUNE_DISABLED,
} from '../../api/constants.ts';
import type {
  InventoryEntry,
  InventoryKey,
  LastAttempted,
  Release,
  ReleaseInventory,
  WaveStatus,
} from '../../api/types.ts';
import type { KubeClient } from '../../kube/client.ts';
import { errorMessage } from '../../lib/errors.ts';
import { entryRef, keyString, objectKey } from '../../render/keys.ts';
import type { Obj } from '../../render/types.ts';
import { releaseLabelValue } from '../../store/layout.ts';
import { appliedBy, applyAll, dryRunAll, mapLimit, ObjectApplyError } from './deployer.ts';
import type { ReleaseDeps } from './deps.ts';
import {
  ApplyFailedError,
  DryRunFailedError,
  PersistFailedError,
  PruneFailedError,
  type ReleaseError,
} from './errors.ts';
import {
  forcedAtOf,
  postSyncAfterApply,
  postSyncStep,
  preSyncStep,
  pruneDepartedHooks,
  syncHooksSettled,
} from './hooks/index.ts';
import { InventoryWriter, readInventory } from './inventory-writer.ts';
import {
  completeWaves,
  formatTime,
  type Rollout,
  type WaveGateDecision,
  waveHealthGate,
} from './rollout/index.ts';
import type { Rendered } from './stage-render.ts';
import {
  entryKey,
  entryKindRank,
  groupWaves,
  inventoryEntriesForWave,
  pruneSet,
  recordWaveStart,
  renderApplied,
  selfHealNote,
} from './sync/index.ts';

export type SyncResult =
  | { readonly kind: 'upToDate' }
  | {
      readonly kind: 'synced';
      readonly attempt: LastAttempted;
      readonly waves: readonly WaveStatus[];
      readonly notes: readonly string[];
    }
  /** A wave gate held (or, with action stop, failed the rollout) part-way; or PreSync/PostSync hooks run. */
  | {
      readonly kind: 'held';
      readonly reason: 'WaitingForWaveHealth' | 'WaveTimeout' | 'WaitingForHook';
      readonly message: string;
      readonly rollout: Rollout | undefined;
      readonly attempt: LastAttempted;
      readonly waves: readonly WaveStatus[];
      readonly notes: readonly string[];
    }
  /** The wave gate rolled back: the caller runs applyLastHealthy. */
  | {
      readonly kind: 'rollback';
      readonly rollout: Rollout;
      readonly attempt: LastAttempted;
      readonly waves: readonly WaveStatus[];
      readonly notes: readonly string[];
    }
  | {
      readonly kind: 'failed';
      readonly error: ReleaseError;
      /** Undefined when the sync failed before persist (dry run). */
      readonly attempt: LastAttempted | undefined;
      readonly waves: readonly WaveStatus[] | undefined;
      readonly notes: readonly string[];
    };

export interface SyncInput {
  readonly release: Release;
  readonly rendered: Rendered;
  readonly forced: boolean;
  /** The reconcile's one snapshot of the inventory and the observer's liveness. */
  readonly observed: { readonly inventory: ReleaseInventory | undefined; readonly observerLive: boolean };
}

/**
 * Whether R is applied, recorded and pruned already, and its PreSync and PostSync hooks have run (`now`:
 * epoch ms, for the hook planners), so syncing again would change nothing.
 */
export function upToDate(
  release: Release,
  rendered: Rendered,
  inventory: ReleaseInventory | undefined,
  now: number,
): boolean {
  const R = rendered.renderRef;
  const st = release.status;
  if (st?.lastSuccessful?.renderRef !== R) return false;
  if (st.lastAttempted?.renderRef !== R || st.lastAttempted.applied !== true) return false;
  const objects = rendered.render.objects.map(objectKey);
  const selfHeal = release.spec.syncPolicy?.selfHeal === true;
  if (!renderApplied({ renderRef: R, objects, inventory, selfHeal })) return false;
  const entries = inventory?.entries ?? [];
  // HOOKS (docs/design.md#hooks): a PostSync still to run, or a PreSync re-armed by a forced sync: work.
  return syncHooksSettled({
    renderRef: R,
    hooks: rendered.render.hooks,
    objects,
    entries,
    hookEntries: inventory?.hooks ?? [],
    healthAssessed: release.spec.healthAssessment !== undefined,
    forcedAt: forcedAtOf(release),
    now,
  });
}

/**
 * For a 403 while impersonating spec.serviceAccountName: when that ServiceAccount does not exist, say
 * so — the API server only says the (nonexistent) user is forbidden, which reads like missing RBAC.
 */
async function missingServiceAccount(
  release: SyncInput['release'],
  err: unknown,
  deps: ReleaseDeps,
): Promise<string | undefined> {
  const sa = release.spec.serviceAccountName;
  if (!(err instanceof ObjectApplyError) || err.httpStatus !== 403 || sa === undefined || sa === '')
    return undefined;
  const ns = release.metadata.namespace ?? '';
  const live = await deps.local
    .get({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: ns, name: sa })
    .catch((readErr: unknown) => {
      deps.log.warn({ err: String(readErr) }, 'could not check spec.serviceAccountName');
      return null;
    });
  if (live !== undefined) return undefined;
  return `ServiceAccount ${ns}/${sa} (spec.serviceAccountName) does not exist: create it and give it the rights to apply the render (the API said: ${err.message})`;
}

export async function stageSync(input: SyncInput, deps: ReleaseDeps): Promise<SyncResult> {
  const { release, rendered, forced, observed } = input;
  const ns = release.metadata.namespace ?? '';
  const name = release.metadata.name ?? '';
  if (!forced && upToDate(release, rendered, observed.inventory, deps.now())) return { kind: 'upToDate' };

  const R = rendered.renderRef;
  const objects = rendered.render.objects;
  const client = rendered.target.client;
  const label = releaseLabelValue(ns, name);
  const uid = release.metadata.uid ?? '';
  const notes: string[] = [];
  const heal = selfHealNote({
    selfHeal: release.spec.syncPolicy?.selfHeal === true,
    forced,
    renderRef: R,
    lastSuccessfulRef: release.status?.lastSuccessful?.renderRef,
    entries: observed.inventory?.entries ?? [],
  });
  if (heal !== undefined) notes.push(heal);

  const attemptBase = { renderRef: R, revision: rendered.revision, time: formatTime(deps.now()) };
  const failed = (error: ReleaseError, waves: readonly WaveStatus[]): SyncResult => ({
    kind: 'failed',
    error,
    attempt: { ...attemptBase, applied: false, reason: error.reason, message: error.message },
    waves,
    notes,
  });
  const hookInput = {
    release,
    renderRef: R,
    render: rendered.render,
    client,
    local: deps.local,
    now: deps.now(),
  };

  // HOOKS (docs/design.md#hooks): held for R's PostSync hooks (or for health before them) after an earlier
  // pass applied, recorded and pruned all of R: only the PostSync step is left. Applying the waves again on
  // every reconcile would rewrite the inventory meanwhile, and the observer's hook and health results,
  // written against the inventory it read, would keep losing to those writes (409).
  const last = release.status?.lastAttempted;
  if (!forced && last?.renderRef === R && last.reason === 'WaitingForHook') {
    let post: Awaited<ReturnType<typeof postSyncAfterApply>>;
    try {
      post = await postSyncAfterApply(hookInput, release.spec.syncPolicy?.selfHeal === true);
    } catch (err) {
      return failed(
        new ApplyFailedError(`reading the inventory: ${errorMessage(err)}`, { cause: err }),
        release.status?.waves ?? [],
      );
    }
    if (post !== undefined)
      return afterPostSync(post, attemptBase, release.status?.waves ?? [], notes, failed);
  }

  // 1. dry run: any failure and nothing is written
  try {
    const dry = await dryRunAll(client, objects, { releaseLabel: label, releaseUid: uid });
    if (dry.skipped.length > 0)
      notes.push(`dry run skipped ${dry.skipped.length} objects: ${dry.skipped.join('; ')}`);
  } catch (err) {
    const missing = await missingServiceAccount(release, err, deps);
    const error =
      err instanceof ObjectApplyError
        ? DryRunFailedError.fromStatus(`dry run failed: ${missing ?? err.message}`, err.httpStatus, err)
        : DryRunFailedError.fromStatus(`dry run failed: ${errorMessage(err)}`, undefined, err);
    return { kind: 'failed', error, attempt: undefined, waves: undefined, notes };
  }

  // 2. persist
  try {
    await deps.store.put(ns, name, R, rendered.render, {
      revision: rendered.revision,
      owner: { apiVersion: API_VERSION, kind: 'Release', name, uid: release.metadata.uid ?? '' },
    });
  } catch (err) {
    const error = new PersistFailedError(`storing render ${R}: ${errorMessage(err)}`, { cause: err });
    return { kind: 'failed', error, attempt: undefined, waves: undefined, notes };
  }
  // 3. HOOKS (docs/design.md#hooks): PreSync hooks of R run here, before wave 0, and gate the waves.
  const pre = await preSyncStep(hookInput);
  notes.push(...pre.notes);
  if (pre.kind === 'fail') return failed(pre.error, release.status?.waves ?? []);
  if (pre.kind === 'hold')
    return waitingForHook(pre.message, attemptBase, release.status?.waves ?? [], notes);

  let waves: readonly WaveStatus[] = release.status?.waves ?? [];
  let writer: InventoryWriter;
  try {
    writer = new InventoryWriter(deps.local, release, await readInventory(deps.local, release));
    notes.push(...(await settleInterrupted(rendered.render.objects, writer, release, rendered.target)));
  } catch (err) {
    return failed(
      new ApplyFailedError(`recording the inventory: ${errorMessage(err)}`, { cause: err }),
      waves,
    );
  }

  // 4. waves
  const plan = groupWaves(objects);
  for (let i = 0; i < plan.length; i++) {
    const wave = plan[i];
    if (wave === undefined) continue;
    const previous = plan[i - 1];
    if (previous !== undefined) {
      // The gate reads the inventory as re-read for this sync, fresher than the reconcile's: a wave it finds
      // Healthy is stamped completed now, so its completedAt never trails the next wave's startedAt.
      waves = completeWaves(waves, writer.entries, formatTime(deps.now()));
      const gate = waveGate(
        release,
        rendered,
        wave.wave,
        previous.wave,
        writer.entries,
        waves,
        observed.observerLive,
        deps,
      );
      switch (gate.kind) {
        case 'proceed':
          break;
        case 'hold':
          return {
            kind: 'held',
            reason: gate.reason,
            message: gate.message,
            rollout: undefined,
            attempt: { ...attemptBase, applied: false, reason: gate.reason },
            waves,
            notes,
          };
        case 'transition':
          if (gate.action === 'applyLastHealthy') {
            return {
              kind: 'rollback',
              rollout: gate.rollout,
              attempt: { ...attemptBase, applied: false, reason: 'WaveTimeout' },
              waves,
              notes,
            };
          }
          return {
            kind: 'held',
            reason: 'WaveTimeout',
            message: gate.rollout.message ?? 'wave timeout',
            rollout: gate.rollout,
            attempt: { ...attemptBase, applied: false, reason: 'WaveTimeout' },
            waves,
            notes,
          };
      }
    }
    // Noted before the apply: a crash or a failure from here on leaves them tracked, never untracked.
    const waveEntries = inventoryEntriesForWave(wave.objects, R, wave.wave);
    try {
      await writer.notePending(waveEntries);
    } catch (err) {
      return failed(
        new ApplyFailedError(`noting wave ${wave.wave} in the inventory: ${errorMessage(err)}`, {
          cause: err,
        }),
        waves,
      );
    }
    const applied: Obj[] = [];
    try {
      await applyAll(client, wave.objects, {
        releaseLabel: label,
        releaseUid: uid,
        onApplied: (o) => applied.push(o),
      });
    } catch (err) {
      // What the API accepted is recorded; the rest stays pending for the next attempt to apply or prune.
      await writer.record(inventoryEntriesForWave(applied, R, wave.wave)).catch((recordErr: unknown) => {
        notes.push(`could not record the ${applied.length} objects applied: ${String(recordErr)}`);
      });
      return failed(
        new ApplyFailedError(`apply of wave ${wave.wave} failed: ${errorMessage(err)}`, { cause: err }),
        waves,
      );
    }
    deps.afterWaveApplied?.(wave.wave);
    try {
      await writer.record(waveEntries);
    } catch (err) {
      return failed(
        new ApplyFailedError(`recording wave ${wave.wave}: ${errorMessage(err)}`, { cause: err }),
        waves,
      );
    }
    waves = recordWaveStart(waves, R, wave.wave, formatTime(deps.now()));
  }

  // 5. prune, highest wave first
  try {
    const pruned = await prune(release, rendered, writer, client, rendered.target.readClient);
    if (pruned.deleted > 0) notes.push(`pruned ${pruned.deleted} objects that left the render`);
    if (pruned.foreign > 0) notes.push(foreignNote(pruned.foreign, 'left the render'));
    // HOOKS (docs/design.md#hooks): hooks that left the render go with the prune, their workloads too.
    const departed = await pruneDepartedHooks(hookInput, writer);
    if (departed > 0) notes.push(`removed ${departed} hooks that left the render`);
  } catch (err) {
    return failed(new PruneFailedError(`prune failed: ${errorMessage(err)}`, { cause: err }), waves);
  }

  // 6. HOOKS (docs/design.md#hooks): PostSync hooks of R, once every object of R is applied (and Healthy).
  const post = await postSyncStep({ ...hookInput, now: deps.now() }, writer);
  return afterPostSync(post, attemptBase, waves, notes, failed);
}

/** The sync's result once the PostSync step of R has run: synced, held for its hooks, or failed. */
function afterPostSync(
  post: Awaited<ReturnType<typeof postSyncStep>>,
  attemptBase: Omit<LastAttempted, 'applied'>,
  waves: readonly WaveStatus[],
  notes: string[],
  failed: (error: ReleaseError, waves: readonly WaveStatus[]) => SyncResult,
): SyncResult {
  notes.push(...post.notes);
  if (post.kind === 'fail') return failed(post.error, waves);
  if (post.kind === 'hold') return waitingForHook(post.message, attemptBase, waves, notes);
  return { kind: 'synced', attempt: { ...attemptBase, applied: true }, waves, notes };
}

/** HOOKS (docs/design.md#hooks): PreSync or PostSync hooks of R run (or PostSync waits for health). */
function waitingForHook(
  message: string,
  attemptBase: Omit<LastAttempted, 'applied'>,
  waves: readonly WaveStatus[],
  notes: readonly string[],
): SyncResult {
  return {
    kind: 'held',
    reason: 'WaitingForHook',
    message,
    rollout: undefined,
    attempt: { ...attemptBase, applied: false, reason: 'WaitingForHook' },
    waves,
    notes,
  };
}

function waveGate(
  release: Release,
  rendered: Rendered,
  wave: number,
  previousWave: number,
  entries: readonly InventoryEntry[],
  waves: readonly WaveStatus[],
  observerLive: boolean,
  deps: ReleaseDeps,
): WaveGateDecision {
  const spec = release.spec.waves?.find((w) => w.wave === wave);
  if (spec?.healthStrategy !== 'WaitPrevious') return { kind: 'proceed' };
  // Already passed for R (the wave was applied, so it has a startedAt): a later sync of R (forced, drift,
  // a due prune) must not meet the long-expired timeout of a previous wave that turned unhealthy since.
  if (waves.some((w) => w.renderRef === rendered.renderRef && w.wave === wave)) return { kind: 'proceed' };
  return waveHealthGate({
    render: { renderRef: rendered.renderRef, revision: rendered.revision },
    wave,
    previousWave,
    entries,
    waves,
    timeout: spec.timeout,
    observerLive,
    failurePolicy: release.spec.failurePolicy,
    pinned: rendered.pinned,
    prior: release.status?.rollout,
    lastHealthy: release.status?.lastHealthy,
    now: deps.now(),
  });
}

/**
 * Crash and failure recovery: keys an earlier sync noted as pending and never recorded. Those in R stay
 * pending (their wave applies and records them); those already recorded are the prune's to decide; the
 * others left the render: each is deleted (prune allowing) when its live object names this Release's uid
 * — never on the label alone — and leaves `pending` either way. Covers every kind convoy applied, since
 * every applied object was noted first.
 */
export async function settleInterrupted(
  objects: readonly Obj[],
  writer: InventoryWriter,
  release: Release,
  target: Pick<Rendered['target'], 'client' | 'readClient'>,
): Promise<string[]> {
  if (writer.pending.length === 0) return [];
  const renderKeys = new Set(objects.map((o) => keyString(objectKey(o))));
  const recorded = new Set(writer.entries.filter((e) => e.renderRef !== undefined).map(entryKey));
  const leaving = writer.pending.filter((p) => !renderKeys.has(entryKey(p)));
  if (leaving.length === 0) return [];
  const toSettle = leaving.filter((p) => !recorded.has(entryKey(p)));
  const marks = await liveMarks(target.readClient, toSettle, release.metadata.uid ?? '');
  const ours = toSettle.filter((p) => marks.ours.has(entryKey(p)));
  const plan = pruneSet(ours, renderKeys, {
    prune: release.spec.syncPolicy?.prune ?? true,
    isPruneDisabled: (k) => marks.disabled.has(entryKey(k)),
  });
  await deleteInOrder(target.client, plan.toDelete);
  await writer.record([], leaving);
  const notes: string[] = [];
  if (plan.toDelete.length > 0)
    notes.push(`pruned ${plan.toDelete.length} objects an interrupted sync applied and left the render`);
  const foreign = toSettle.length - ours.length - marks.absent;
  if (foreign > 0) notes.push(foreignNote(foreign, 'an interrupted sync noted'));
  return notes;
}

/** The note (and so the Event) for objects convoy will not delete because nothing proves they are its. */
export function foreignNote(n: number, which: string): string {
  return (
    `left ${n} objects that ${which} in place: convoy's field manager did not set their ` +
    `${ANNOTATION_RELEASE_UID} to this Release's uid (another Release's, or written by someone else)`
  );
}

/** Deletes what left R (unless prune is off or the object opts out) and drops all of it from the inventory. */
async function prune(
  release: Release,
  rendered: Rendered,
  writer: InventoryWriter,
  client: KubeClient,
  read: KubeClient,
): Promise<{ readonly deleted: number; readonly foreign: number }> {
  const renderKeys = new Set(rendered.render.objects.map((o) => keyString(objectKey(o))));
  const leaving = writer.entries.filter((e) => !renderKeys.has(entryKey(e)));
  if (leaving.length === 0) return { deleted: 0, foreign: 0 };
  const marks = await liveMarks(read, leaving, release.metadata.uid ?? '');
  const plan = pruneSet(leaving, renderKeys, {
    prune: release.spec.syncPolicy?.prune ?? true,
    isPruneDisabled: (k) => marks.disabled.has(entryKey(k)) || marks.foreign.has(entryKey(k)),
  });
  await deleteInOrder(client, plan.toDelete);
  await writer.remove([...plan.toDelete, ...plan.toForget]);
  return {
    deleted: plan.toDelete.length,
    foreign: leaving.filter((e) => marks.foreign.has(entryKey(e))).length,
  };
}

export interface LiveMarks {
  /** Keys whose live object carries convoy.kumodo.io/prune: disabled. */
  readonly disabled: Set<string>;
  /** Keys whose live object names this Release's uid (ANNOTATION_RELEASE_UID). */
  readonly ours: Set<string>;
  /**
   * Keys whose live object names another uid (another Release applied it since), or names this one
   * without convoy's field manager having set it (a forgery): never deleted.
   */
  readonly foreign: Set<string>;
  /** How many have no live object. */
  readonly absent: number;
}

/** Reads the live object of each entry (16 at once) for what prune must know before deleting it. */
export async function liveMarks(
  read: KubeClient,
  entries: readonly (InventoryKey & { version?: string })[],
  releaseUid: string,
): Promise<LiveMarks> {
  const marks = {
    disabled: new Set<string>(),
    ours: new Set<string>(),
    foreign: new Set<string>(),
    absent: 0,
  };
  await mapLimit(entries, 16, async (e) => {
    const live = await liveObject(read, e);
    const key = entryKey(e);
    if (live === undefined) {
      marks.absent++;
      return;
    }
    if (live.metadata.annotations?.[ANNOTATION_PRUNE] === PRUNE_DISABLED) marks.disabled.add(key);
    const owner = live.metadata.annotations?.[ANNOTATION_RELEASE_UID];
    if (appliedBy(live, releaseUid)) marks.ours.add(key);
    else if (owner !== undefined) marks.foreign.add(key);
  });
  return marks;
}

/**
 * The live object of an entry; undefined when there is none: also when its kind is no longer served, or
 * it is namespaced and the entry names no namespace (an apply of it was rejected, so none can exist).
 */
async function liveObject(
  read: KubeClient,
  e: InventoryKey & { version?: string },
): Promise<Obj | undefined> {
  const ref = entryRef(e);
  try {
    if (e.namespace === '' && (await read.resourceFor(ref.apiVersion, ref.kind)).namespaced) return undefined;
    return await read.get<Obj>(ref);
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

/**
 * Deletes entries in the order given (pruneSet's: highest wave first, Namespaces and CRDs last in a
 * wave), 8 at once among neighbours of the same wave and kind rank, which may go in any order.
 */
export async function deleteInOrder(
  client: KubeClient,
  entries: readonly (InventoryKey & { version?: string; wave?: number })[],
): Promise<void> {
  let start = 0;
  while (start < entries.length) {
    const first = entries[start] as InventoryKey & { wave?: number };
    let end = start + 1;
    while (end < entries.length) {
      const e = entries[end] as InventoryKey & { wave?: number };
      if ((e.wave ?? 0) !== (first.wave ?? 0) || entryKindRank(e) !== entryKindRank(first)) break;
      end++;
    }
    await mapLimit(entries.slice(start, end), 8, (e) => deleteEntry(client, e));
    start = end;
  }
}

export async function deleteEntry(client: KubeClient, e: InventoryKey & { version?: string }): Promise<void> {
  try {
    await client.delete(entryRef(e), { propagationPolicy: 'Background' });
  } catch (err) {
    if ((err as { code?: number }).code === 404) return;
    throw err;
  }
}
