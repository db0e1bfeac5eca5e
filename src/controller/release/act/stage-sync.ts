// stageSync runs the steps sync-plan.ts plans for R (docs/design.md#reconcile-order), stopping at the first
// that holds or fails. The crash-safety order lives here (docs/design.md#field-ownership): a wave's keys
// are noted as pending in the inventory before its apply, recorded after it, and on a failed apply what
// the API accepted is recorded while the rest stays pending. A render that is already applied, recorded
// and pruned is not synced again unless a forced sync is pending (or, with selfHeal, the drift loop
// flagged an entry), so a steady reconcile writes nothing; nor are its waves applied again while the sync
// of R holds for its PostSync hooks after applying all of R (docs/design.md#hooks).
import { API_VERSION } from '../../../api/constants.ts';
import type { Release, ReleaseInventory, WaveStatus } from '../../../api/types.ts';
import type { MergedInventory } from '../../../kube/inventory-parts.ts';
import { assertNever } from '../../../lib/assert-never.ts';
import { errorMessage } from '../../../lib/errors.ts';
import { nameOf, namespaceOf } from '../../../lib/names.ts';
import type { Obj } from '../../../render/types.ts';
import { namesRender } from '../../../store/keep.ts';
import { releaseLabelValue } from '../../../store/layout.ts';
import { completeWaves, formatTime } from '../decide/rollout/index.ts';
import {
  appliedCollector,
  crdsKeptNote,
  inventoryEntriesForWave,
  recordWaveStart,
  selfHealNote,
} from '../decide/sync/index.ts';
import {
  failedBeforeApply,
  failedSync,
  gateStop,
  hookStop,
  inventoryMayTrail,
  planSync,
  type SyncResult,
  type SyncSoFar,
  type SyncStep,
  waveAhead,
  waveGate,
} from '../decide/sync/plan.ts';
import type { ReleaseDeps } from '../deps.ts';
import {
  ApplyFailedError,
  DryRunFailedError,
  PersistFailedError,
  PruneFailedError,
  type ReleaseError,
} from '../errors.ts';
import { crdsFor, dryRunWithCrds } from './crd-first.ts';
import { describeRefusal } from './crd-schema-check.ts';
import { applyAll, dryRunAll, ObjectApplyError } from './deployer.ts';
import {
  liveObjectsOf,
  postSyncAfterApply,
  postSyncStep,
  preSyncStep,
  pruneDepartedHooks,
  type SyncHookInput,
} from './hooks/index.ts';
import { openInventory, readInventory } from './inventory-open.ts';
import { InventoryWriter } from './inventory-writer.ts';
import { missingServiceAccount } from './missing-service-account.ts';
import { foreignNote, pruneLeft, settleInterrupted } from './prune.ts';
import type { Rendered } from './stage-render.ts';

export { type SyncResult, upToDate } from '../decide/sync/plan.ts';

export interface SyncInput {
  readonly release: Release;
  readonly rendered: Rendered;
  readonly forced: boolean;
  /** The reconcile's one snapshot of the inventory and the observer's liveness. */
  readonly observed: { readonly inventory: ReleaseInventory | undefined; readonly observerLive: boolean };
}

/** The state of one sync as its steps run. */
interface Run extends SyncSoFar {
  readonly input: SyncInput;
  readonly deps: ReleaseDeps;
  readonly hookInput: SyncHookInput;
  readonly labels: { readonly releaseLabel: string; readonly releaseUid: string };
  readonly notes: string[];
  waves: readonly WaveStatus[];
  /** The inventory as re-read for this sync: openWriter, by the CRDs' dry run or settleInterrupted, before any wave. */
  writer: InventoryWriter | undefined;
  /** What the dry run skipped for a CRD of the render, for the dryRunWithCrds step. */
  skipped: readonly Obj[];
}

export async function stageSync(input: SyncInput, deps: ReleaseDeps): Promise<SyncResult> {
  const { release, rendered, forced, observed } = input;
  const ns = namespaceOf(release);
  const name = nameOf(release);
  const now = deps.now();
  const uid = release.metadata.uid ?? '';
  const client = rendered.target.client;
  const dryRunPassed = deps.memory.dryRuns.has(client, uid, rendered.renderRef) === true;
  let plan = planSync({ release, rendered, forced, inventory: observed.inventory, now, dryRunPassed });
  if (plan.kind === 'upToDate') return { kind: 'upToDate' };
  if (inventoryMayTrail(release, rendered.renderRef, forced)) {
    // The status says R is synced and only the cached inventory disagrees: the cache may not show this
    // process's own last record yet (a pending note it settled, say). Ask the API before syncing R again —
    // a sync would note R's keys pending anew and rewrite the inventory for nothing.
    let fresh: MergedInventory | undefined;
    try {
      fresh = await readInventory(deps.local, release);
    } catch (err) {
      const error = new ApplyFailedError(`reading the inventory: ${errorMessage(err)}`, { cause: err });
      return failedBeforeApply(error, []);
    }
    plan = planSync({ release, rendered, forced, inventory: fresh?.inventory, now, dryRunPassed });
    if (plan.kind === 'upToDate') return { kind: 'upToDate' };
  }

  const R = rendered.renderRef;
  const notes: string[] = [];
  const heal = selfHealNote({
    selfHeal: release.spec.syncPolicy?.selfHeal === true,
    forced,
    renderRef: R,
    lastSuccessfulRef: release.status?.lastSuccessful?.renderRef,
    entries: observed.inventory?.entries ?? [],
  });
  if (heal !== undefined) notes.push(heal);
  const run: Run = {
    input,
    deps,
    attemptBase: { renderRef: R, revision: rendered.revision, time: formatTime(deps.now()) },
    hookInput: {
      release,
      renderRef: R,
      render: rendered.render,
      client: rendered.target.client,
      target: rendered.target,
      local: deps.local,
      now: deps.now(),
    },
    labels: { releaseLabel: releaseLabelValue(ns, name), releaseUid: release.metadata.uid ?? '' },
    notes,
    waves: release.status?.waves ?? [],
    writer: undefined,
    skipped: [],
  };
  for (const [i, step] of plan.steps.entries()) {
    const stop = await runStep(step, run, plan.steps[i + 1]);
    if (stop !== undefined) return stop;
  }
  throw new Error('stageSync: the plan ended without its PostSync step');
}

/** Runs one step: undefined to go on to the next, else the sync's result. */
async function runStep(
  step: SyncStep,
  run: Run,
  next: SyncStep | undefined,
): Promise<SyncResult | undefined> {
  switch (step.kind) {
    case 'resumePostSync':
      return await resumePostSync(run);
    case 'dryRun':
      return await dryRun(run);
    case 'dryRunWithCrds':
      return await dryRunCustomResources(run);
    case 'persist':
      return await persist(run);
    case 'preSync':
      return await preSync(run, step.belowWeight);
    case 'settleInterrupted':
      return await settle(run);
    case 'wave':
      return await runWave(step, run, waveAhead(step, next));
    case 'prune':
      return await prune(run);
    case 'postSync':
      return await postSync(run);
    default:
      return assertNever(step);
  }
}

/**
 * HOOKS (docs/design.md#hooks): held for R's PostSync hooks (or for health before them) after an earlier
 * pass applied, recorded and pruned all of R. Applying the waves again on every reconcile would rewrite
 * the inventory meanwhile, and the observer's hook and health results, written against the inventory it
 * read, would keep losing to those writes (409).
 */
async function resumePostSync(run: Run): Promise<SyncResult | undefined> {
  let post: Awaited<ReturnType<typeof postSyncAfterApply>>;
  try {
    post = await postSyncAfterApply(run.hookInput, run.input.release.spec.syncPolicy?.selfHeal === true);
  } catch (err) {
    const error = new ApplyFailedError(`reading the inventory: ${errorMessage(err)}`, { cause: err });
    return failedSync(error, run);
  }
  if (post === undefined) return undefined;
  run.notes.push(...post.notes);
  return hookStop(post, run, true);
}

/** The server-side dry run of every object of R: a failure stops the sync before anything is written. */
async function dryRun(run: Run): Promise<SyncResult | undefined> {
  const { input, deps, notes } = run;
  const { release, rendered } = input;
  // Asked before the API too: while the CRDs a refused dry run put in are still terminating, their
  // custom resources are served, and a dry run now would answer "terminating" instead of the refusal.
  const refused = refusedBefore(run);
  if (refused !== undefined) return failedBeforeApply(refused, notes);
  try {
    const dry = await dryRunAll(rendered.target.client, rendered.render.objects, run.labels);
    // The custom resources of the render's own CRDs are checked once those are in (dryRunWithCrds).
    if (crdsFor(rendered.render.objects, dry.skippedObjects).length > 0) run.skipped = dry.skippedObjects;
    else dryRunDone(run, dry.skipped);
    return undefined;
  } catch (err) {
    return failedBeforeApply(await dryRunError(release, err, deps), notes);
  }
}

/** What the dry run skipped for a CRD of the render, dry-run with those CRDs applied (act/crd-first.ts). */
async function dryRunCustomResources(run: Run): Promise<SyncResult | undefined> {
  const { input, deps, notes } = run;
  const { release, rendered } = input;
  if (run.skipped.length === 0) return undefined;
  const memo = deps.memory.dryRuns;
  const client = rendered.target.client;
  const uid = run.labels.releaseUid;
  const refused = refusedBefore(run);
  if (refused !== undefined) return failedBeforeApply(refused, notes);
  try {
    const dry = await dryRunWithCrds({
      target: rendered.target,
      writer: await openWriter(run),
      objects: rendered.render.objects,
      skipped: run.skipped,
      renderRef: rendered.renderRef,
      labels: run.labels,
    });
    let error: ReleaseError;
    let httpStatus: number | undefined;
    switch (dry.kind) {
      case 'checked':
        dryRunDone(run, dry.skipped);
        return undefined;
      case 'invalid':
        // The server answers such an object 422 Invalid: stalled alike, until the render changes.
        httpStatus = 422;
        error = DryRunFailedError.fromStatus(`dry run failed: ${describeRefusal(dry.refusal)}`, httpStatus);
        break;
      case 'refused':
        error = await dryRunError(release, dry.error, deps);
        httpStatus = dry.error instanceof ObjectApplyError ? dry.error.httpStatus : undefined;
        break;
      default:
        return assertNever(dry);
    }
    memo.refused(client, uid, rendered.renderRef, { message: error.message, httpStatus });
    return failedBeforeApply(error, notes);
  } catch (err) {
    return failedBeforeApply(await dryRunError(release, err, deps), notes);
  }
}

/**
 * The refusal of R's dry run with its CRDs, remembered for this target (none after a forced sync): the
 * same answer, without creating and deleting its CRDs again on every retry.
 */
function refusedBefore(run: Run): ReleaseError | undefined {
  const { input, deps, labels } = run;
  const memo = deps.memory.dryRuns;
  const client = input.rendered.target.client;
  if (input.forced) memo.forget(client, labels.releaseUid, input.rendered.renderRef);
  const refused = memo.refusal(client, labels.releaseUid, input.rendered.renderRef);
  return refused === undefined
    ? undefined
    : DryRunFailedError.fromStatus(refused.message, refused.httpStatus);
}

/** Notes what a dry run could not check; only a render every object of which was checked is spared the next. */
function dryRunDone(run: Run, skipped: readonly string[]): void {
  const { rendered } = run.input;
  if (skipped.length > 0) run.notes.push(`dry run skipped ${skipped.length} objects: ${skipped.join('; ')}`);
  else run.deps.memory.dryRuns.passed(rendered.target.client, run.labels.releaseUid, rendered.renderRef);
}

/** A dry run's failure as DryRunFailed, naming the object (and a ServiceAccount that does not exist). */
async function dryRunError(release: Release, err: unknown, deps: ReleaseDeps): Promise<ReleaseError> {
  const missing = await missingServiceAccount(release, err, deps);
  return err instanceof ObjectApplyError
    ? DryRunFailedError.fromStatus(`dry run failed: ${missing ?? err.message}`, err.httpStatus, err)
    : DryRunFailedError.fromStatus(`dry run failed: ${errorMessage(err)}`, undefined, err);
}

/** The render into the render store, before anything of it is applied (docs/design.md#render-store). */
async function persist(run: Run): Promise<SyncResult | undefined> {
  const { input, deps, notes } = run;
  const { release, rendered } = input;
  const ns = namespaceOf(release);
  const name = nameOf(release);
  try {
    await deps.store.put(ns, name, rendered.renderRef, rendered.render, {
      revision: rendered.revision,
      owner: { apiVersion: API_VERSION, kind: 'Release', name, uid: release.metadata.uid ?? '' },
      expectNew: !namesRender(release.status, rendered.renderRef),
    });
    deps.memory.mayBeStored.get(release.metadata.uid ?? '')?.add(rendered.renderRef);
    return undefined;
  } catch (err) {
    const msg = `storing render ${rendered.renderRef}: ${errorMessage(err)}`;
    return failedBeforeApply(new PersistFailedError(msg, { cause: err }), notes);
  }
}

/**
 * HOOKS (docs/design.md#hooks): PreSync hooks of R run here, before wave 0, and gate the waves; once they
 * finished, the hook resources their delete policy names go.
 */
async function preSync(run: Run, belowWeight: number | undefined): Promise<SyncResult | undefined> {
  let writer: InventoryWriter;
  try {
    writer = await openWriter(run);
  } catch (err) {
    const error = new ApplyFailedError(`reading the inventory: ${errorMessage(err)}`, { cause: err });
    return failedSync(error, run);
  }
  const pre = await preSyncStep(run.hookInput, writer, belowWeight);
  run.notes.push(...pre.notes);
  return hookStop(pre, run, false);
}

/** Keys an interrupted sync left pending: kept when in R, deleted when they left it (docs/design.md#reconcile-order). */
async function settle(run: Run): Promise<SyncResult | undefined> {
  const { input, notes } = run;
  const { release, rendered } = input;
  try {
    // Opened already when the CRDs of the render went in for the dry run.
    const writer = await openWriter(run);
    notes.push(...(await settleInterrupted(rendered.render.objects, writer, release, rendered.target)));
    return undefined;
  } catch (err) {
    const error = new ApplyFailedError(`recording the inventory: ${errorMessage(err)}`, { cause: err });
    return failedSync(error, run);
  }
}

/** Prune (docs/design.md#prune) after the last wave, then the hooks that left the render. */
async function prune(run: Run): Promise<SyncResult | undefined> {
  const { input, hookInput, notes } = run;
  const { release, rendered } = input;
  try {
    const writer = opened(run);
    const pruned = await pruneLeft(release, rendered.render.objects, writer, rendered.target);
    if (pruned.deleted > 0) notes.push(`pruned ${pruned.deleted} objects that left the render`);
    if (pruned.foreign > 0) notes.push(foreignNote(pruned.foreign, 'left the render'));
    if (pruned.crdsKept > 0) notes.push(crdsKeptNote(pruned.crdsKept));
    // HOOKS (docs/design.md#hooks): hooks that left the render go with the prune, their workloads too.
    const departed = await pruneDepartedHooks(hookInput, writer);
    if (departed > 0) notes.push(`removed ${departed} hooks that left the render`);
    return undefined;
  } catch (err) {
    return failedSync(new PruneFailedError(`prune failed: ${errorMessage(err)}`, { cause: err }), run);
  }
}

/** HOOKS (docs/design.md#hooks): PostSync hooks of R, once every object of R is applied (and Healthy). */
async function postSync(run: Run): Promise<SyncResult | undefined> {
  const post = await postSyncStep({ ...run.hookInput, now: run.deps.now() }, opened(run));
  run.notes.push(...post.notes);
  return hookStop(post, run, true);
}

/**
 * One wave (docs/design.md#waves): its gate, then note pending → apply → record, and stamp status.waves.
 * The record also notes `ahead`'s keys pending (the next wave, when no gate holds it): then that wave's
 * own note finds them noted already and writes nothing.
 */
async function runWave(
  step: SyncStep & { kind: 'wave' },
  run: Run,
  ahead: (SyncStep & { kind: 'wave' }) | undefined,
): Promise<SyncResult | undefined> {
  const { input, deps, notes } = run;
  const { release, rendered } = input;
  const writer = opened(run);
  const fail = (error: ReleaseError) => failedSync(error, run);
  if (step.previousWave !== undefined) {
    // The gate reads the inventory as re-read for this sync, fresher than the reconcile's: a wave it finds
    // Healthy is stamped completed now, so its completedAt never trails the next wave's startedAt.
    run.waves = completeWaves(run.waves, writer.entries, formatTime(deps.now()));
    const gate = waveGate(step.gate, {
      release,
      render: rendered,
      wave: step.wave,
      entries: writer.entries,
      waves: run.waves,
      observerLive: input.observed.observerLive,
      now: deps.now(),
    });
    const stop = gateStop(gate, run);
    if (stop !== undefined) return stop;
  }
  const R = rendered.renderRef;
  // HOOKS (docs/design.md#hooks): by the inventory as re-read, fresher than the plan's snapshot, a hook
  // resource its delete policy removed is never applied again for R.
  const hookEntries = writer.inventory?.hooks ?? [];
  const objects = liveObjectsOf(run.hookInput, hookEntries, step.objects);
  const next = ahead === undefined ? [] : liveObjectsOf(run.hookInput, hookEntries, ahead.objects);
  const entries = inventoryEntriesForWave(objects, R, step.wave);
  // Noted before the apply: a crash or a failure from here on leaves them tracked, never untracked.
  try {
    await writer.notePending(entries);
  } catch (err) {
    const msg = `noting wave ${step.wave} in the inventory: ${errorMessage(err)}`;
    return fail(new ApplyFailedError(msg, { cause: err }));
  }
  const { applied, versions, onApplied } = appliedCollector();
  try {
    await applyAll(rendered.target.client, objects, { ...run.labels, onApplied });
  } catch (err) {
    // The next attempt dry-runs R again before applying anything of it.
    deps.memory.dryRuns.forget(rendered.target.client, run.labels.releaseUid, R);
    // What the API accepted is recorded; the rest stays pending for the next attempt to apply or prune.
    await writer
      .record(inventoryEntriesForWave(applied, R, step.wave, versions))
      .catch((recordErr: unknown) => {
        notes.push(`could not record the ${applied.length} objects applied: ${String(recordErr)}`);
      });
    const msg = `apply of wave ${step.wave} failed: ${errorMessage(err)}`;
    return fail(new ApplyFailedError(msg, { cause: err }));
  }
  deps.afterWaveApplied?.(step.wave);
  try {
    await writer.record(
      inventoryEntriesForWave(objects, R, step.wave, versions),
      [],
      ahead === undefined ? [] : inventoryEntriesForWave(next, R, ahead.wave),
    );
  } catch (err) {
    return fail(new ApplyFailedError(`recording wave ${step.wave}: ${errorMessage(err)}`, { cause: err }));
  }
  // Hook resources are not a wave of their own: the wave gate and its clock know only the waves.
  if (step.hookResources !== true)
    run.waves = recordWaveStart(run.waves, R, step.wave, formatTime(deps.now()));
  return undefined;
}

/** The inventory writer of this sync, opened by the first step that needs it (CRDs' dry run or settle). */
async function openWriter(run: Run): Promise<InventoryWriter> {
  const { deps, input } = run;
  run.writer ??= new InventoryWriter(deps.local, input.release, await openInventory(deps, input.release));
  return run.writer;
}

function opened(run: Run): InventoryWriter {
  if (run.writer === undefined) throw new Error('stageSync: the plan reads the inventory before its waves');
  return run.writer;
}
