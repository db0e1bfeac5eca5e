// stageSync: dry run of the whole render → persist (render store + the attempt) → [hooks slot] → waves
// (apply, then record in the inventory and stamp status.waves) → prune. A render that is already
// applied, recorded and pruned is not synced again unless a forced sync is pending (or, with selfHeal,
// the drift loop flagged an entry), so a steady reconcile writes nothing.
import { ANNOTATION_PRUNE, API_VERSION, LABEL_RELEASE, PRUNE_DISABLED } from '../../api/constants.ts';
import type {
  InventoryEntry,
  InventoryKey,
  LastAttempted,
  Release,
  ReleaseInventory,
  WaveStatus,
} from '../../api/types.ts';
import type { KubeClient } from '../../kube/client.ts';
import { keyString, objectKey } from '../../render/keys.ts';
import type { Obj } from '../../render/types.ts';
import { releaseLabelValue } from '../../store/layout.ts';
import { applyAll, dryRunAll, ObjectApplyError } from './deployer.ts';
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
  postSyncStep,
  preSyncStep,
  pruneDepartedHooks,
  syncHooksSettled,
} from './hooks/index.ts';
import { InventoryWriter, readInventory } from './inventory-writer.ts';
import { formatTime, type Rollout, type WaveGateDecision, waveHealthGate } from './rollout/index.ts';
import type { Rendered } from './stage-render.ts';
import {
  entryKey,
  groupWaves,
  inventoryEntriesForWave,
  orphanedObjects,
  pruneSet,
  recordWaveStart,
  recoverOrphans,
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
  const entries = inventory?.entries ?? [];
  const byKey = new Map(entries.map((e) => [entryKey(e), e]));
  const keys = new Set(rendered.render.objects.map((o) => keyString(objectKey(o))));
  if (rendered.render.objects.some((o) => byKey.get(keyString(objectKey(o)))?.renderRef !== R)) return false;
  // leftovers of an earlier render still recorded: a prune is due
  if (entries.some((e) => !keys.has(entryKey(e)) && (e.renderRef !== undefined || e.wave !== undefined)))
    return false;
  if (release.spec.syncPolicy?.selfHeal === true && entries.some((e) => e.drifted === true)) return false;
  // HOOKS (docs/design.md#hooks): a PostSync still to run, or a PreSync re-armed by a forced sync: work.
  return syncHooksSettled({
    renderRef: R,
    hooks: rendered.render.hooks,
    objects: rendered.render.objects.map(objectKey),
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
  const notes: string[] = [];
  const heal = selfHealNote({
    selfHeal: release.spec.syncPolicy?.selfHeal === true,
    forced,
    renderRef: R,
    lastSuccessfulRef: release.status?.lastSuccessful?.renderRef,
    entries: observed.inventory?.entries ?? [],
  });
  if (heal !== undefined) notes.push(heal);

  // 1. dry run: any failure and nothing is written
  try {
    const dry = await dryRunAll(client, objects, { releaseLabel: label });
    if (dry.skipped.length > 0)
      notes.push(`dry run skipped ${dry.skipped.length} objects: ${dry.skipped.join('; ')}`);
  } catch (err) {
    const missing = await missingServiceAccount(release, err, deps);
    const error =
      err instanceof ObjectApplyError
        ? DryRunFailedError.fromStatus(`dry run failed: ${missing ?? err.message}`, err.httpStatus, err)
        : DryRunFailedError.fromStatus(`dry run failed: ${(err as Error).message}`, undefined, err);
    return { kind: 'failed', error, attempt: undefined, waves: undefined, notes };
  }

  // 2. persist
  const attemptBase = { renderRef: R, revision: rendered.revision, time: formatTime(deps.now()) };
  try {
    await deps.store.put(ns, name, R, rendered.render, {
      revision: rendered.revision,
      owner: { apiVersion: API_VERSION, kind: 'Release', name, uid: release.metadata.uid ?? '' },
    });
  } catch (err) {
    const error = new PersistFailedError(`storing render ${R}: ${(err as Error).message}`, { cause: err });
    return { kind: 'failed', error, attempt: undefined, waves: undefined, notes };
  }
  const failed = (error: ReleaseError, waves: readonly WaveStatus[]): SyncResult => ({
    kind: 'failed',
    error,
    attempt: { ...attemptBase, applied: false, reason: error.reason, message: error.message },
    waves,
    notes,
  });

  // 3. HOOKS (docs/design.md#hooks): PreSync hooks of R run here, before wave 0, and gate the waves.
  const hookInput = {
    release,
    renderRef: R,
    render: rendered.render,
    client,
    local: deps.local,
    now: deps.now(),
  };
  const pre = await preSyncStep(hookInput);
  notes.push(...pre.notes);
  if (pre.kind === 'fail') return failed(pre.error, release.status?.waves ?? []);
  if (pre.kind === 'hold')
    return waitingForHook(pre.message, attemptBase, release.status?.waves ?? [], notes);

  let waves: readonly WaveStatus[] = release.status?.waves ?? [];
  let writer: InventoryWriter;
  try {
    writer = new InventoryWriter(deps.local, release, await readInventory(deps.local, release));
    notes.push(...(await recover(rendered, writer, label, release, client)));
  } catch (err) {
    return failed(
      new ApplyFailedError(`recording the inventory: ${(err as Error).message}`, { cause: err }),
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
    try {
      await applyAll(client, wave.objects, { releaseLabel: label });
    } catch (err) {
      return failed(
        new ApplyFailedError(`apply of wave ${wave.wave} failed: ${(err as Error).message}`, { cause: err }),
        waves,
      );
    }
    deps.afterWaveApplied?.(wave.wave);
    try {
      await writer.record(inventoryEntriesForWave(wave.objects, R, wave.wave));
    } catch (err) {
      return failed(
        new ApplyFailedError(`recording wave ${wave.wave}: ${(err as Error).message}`, { cause: err }),
        waves,
      );
    }
    waves = recordWaveStart(waves, R, wave.wave, formatTime(deps.now()));
  }

  // 5. prune, highest wave first
  try {
    const pruned = await prune(release, rendered, writer, client, rendered.target.readClient);
    if (pruned > 0) notes.push(`pruned ${pruned} objects that left the render`);
    // HOOKS (docs/design.md#hooks): hooks that left the render go with the prune, their workloads too.
    const departed = await pruneDepartedHooks(hookInput, writer);
    if (departed > 0) notes.push(`removed ${departed} hooks that left the render`);
  } catch (err) {
    return failed(new PruneFailedError(`prune failed: ${(err as Error).message}`, { cause: err }), waves);
  }

  // 6. HOOKS (docs/design.md#hooks): PostSync hooks of R, once every object of R is applied (and Healthy).
  const post = await postSyncStep({ ...hookInput, now: deps.now() }, writer);
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

type Live = Obj & { metadata: Obj['metadata'] & { ownerReferences?: { controller?: boolean }[] } };

/**
 * Crash safety: objects labelled for this Release that the inventory does not hold (a controller killed
 * between applying a wave and recording it) are recorded when they are in R, deleted when they left it.
 * Looked for among the kinds of R and of the inventory.
 */
async function recover(
  rendered: Rendered,
  writer: InventoryWriter,
  label: string,
  release: Release,
  client: KubeClient,
): Promise<string[]> {
  const kinds = new Map<string, { apiVersion: string; kind: string }>();
  for (const o of rendered.render.objects)
    kinds.set(`${o.apiVersion}/${o.kind}`, { apiVersion: o.apiVersion, kind: o.kind });
  for (const e of writer.entries) {
    const apiVersion = e.group === '' ? (e.version ?? 'v1') : `${e.group}/${e.version ?? 'v1'}`;
    kinds.set(`${apiVersion}/${e.kind}`, { apiVersion, kind: e.kind });
  }
  const read = rendered.target.readClient;
  const live: Live[] = [];
  for (const k of kinds.values()) {
    const items = await read.list<Live>(k, { labelSelector: `${LABEL_RELEASE}=${label}` }).catch(() => []);
    live.push(...items.map((o) => ({ ...o, apiVersion: k.apiVersion, kind: k.kind })));
  }
  const orphans = orphanedObjects(live, writer.entries, label);
  if (orphans.length === 0) return [];
  const renderKeys = new Set(rendered.render.objects.map((o) => keyString(objectKey(o))));
  const disabled = new Set(
    orphans
      .filter((o) => o.metadata.annotations?.[ANNOTATION_PRUNE] === PRUNE_DISABLED)
      .map((o) => keyString(objectKey(o))),
  );
  const plan = recoverOrphans(orphans, renderKeys, {
    prune: release.spec.syncPolicy?.prune ?? true,
    isPruneDisabled: (k) => disabled.has(entryKey(k)),
  });
  await writer.record(plan.record);
  for (const e of plan.toDelete) await deleteEntry(client, e);
  const notes: string[] = [];
  if (plan.record.length > 0)
    notes.push(`recorded ${plan.record.length} unrecorded objects found by their label`);
  if (plan.toDelete.length > 0)
    notes.push(`deleted ${plan.toDelete.length} orphaned objects found by their label`);
  return notes;
}

/** Deletes what left R (unless prune is off or the object opts out) and drops all of it from the inventory. */
async function prune(
  release: Release,
  rendered: Rendered,
  writer: InventoryWriter,
  client: KubeClient,
  read: KubeClient,
): Promise<number> {
  const renderKeys = new Set(rendered.render.objects.map((o) => keyString(objectKey(o))));
  const leaving = writer.entries.filter((e) => !renderKeys.has(entryKey(e)));
  if (leaving.length === 0) return 0;
  const disabled = await pruneDisabled(read, leaving);
  const plan = pruneSet(leaving, renderKeys, {
    prune: release.spec.syncPolicy?.prune ?? true,
    isPruneDisabled: (k) => disabled.has(entryKey(k)),
  });
  for (const e of plan.toDelete) await deleteEntry(client, e);
  await writer.remove([...plan.toDelete, ...plan.toForget]);
  return plan.toDelete.length;
}

export function entryRef(e: InventoryEntry) {
  const apiVersion = e.group === '' ? (e.version ?? 'v1') : `${e.group}/${e.version ?? 'v1'}`;
  return {
    apiVersion,
    kind: e.kind,
    name: e.name,
    ...(e.namespace === '' ? {} : { namespace: e.namespace }),
  };
}

/** Keys of the entries whose live object carries convoy.kumodo.io/prune: disabled. */
export async function pruneDisabled(
  read: KubeClient,
  entries: readonly InventoryEntry[],
): Promise<Set<string>> {
  const out = new Set<string>();
  for (const e of entries) {
    const live = await read.get<Obj>(entryRef(e)).catch((err: unknown) => {
      // a kind no longer served has no object left to keep
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    });
    if (live?.metadata.annotations?.[ANNOTATION_PRUNE] === PRUNE_DISABLED) out.add(entryKey(e));
  }
  return out;
}

export async function deleteEntry(client: KubeClient, e: InventoryKey & { version?: string }): Promise<void> {
  try {
    await client.delete(entryRef(e), { propagationPolicy: 'Background' });
  } catch (err) {
    if ((err as { code?: number }).code === 404) return;
    throw err;
  }
}
