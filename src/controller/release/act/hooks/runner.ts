// The hook runner inside a reconcile: carries out the planners' decisions — creates each armed hook's
// workload and only then records it in ReleaseInventory.hooks, deletes the workloads the delete policies
// release — for PreSync (before wave 0), PostSync (after the last wave and the prune), SyncFail (after a
// failed sync or rollout of R) and the hooks that left the render; and once a phase of R has finished,
// removes the hook resources its delete policies name. The planners decide; this is the edge.
import type { InventoryHook, Release } from '../../../../api/types.ts';
import type { KubeClient } from '../../../../kube/client.ts';
import { assertNever } from '../../../../lib/assert-never.ts';
import { errorMessage } from '../../../../lib/errors.ts';
import { nameOf, namespaceOf } from '../../../../lib/names.ts';
import { objectKey } from '../../../../render/keys.ts';
import type { Obj, Render } from '../../../../render/types.ts';
import { releaseLabelValue } from '../../../../store/layout.ts';
import type { HookWorkloadRef } from '../../decide/hooks/cleanup.ts';
import { departedHooks } from '../../decide/hooks/cleanup.ts';
import { hookDefs } from '../../decide/hooks/defs.ts';
import { forcedAtOf, type HookGate, hookGate, type SyncHookStep } from '../../decide/hooks/gate.ts';
import type { HookArming, HookPhaseDecision } from '../../decide/hooks/plan.ts';
import { planHookPhase } from '../../decide/hooks/plan.ts';
import { type PostSyncDecision, planPostSync } from '../../decide/hooks/post-sync.ts';
import { liveObjects, phaseOutcome, spentHookResources } from '../../decide/hooks/resources.ts';
import { type SyncFailOutcome, syncFailHooks, syncFailTrigger } from '../../decide/hooks/sync-fail.ts';
import { renderApplied } from '../../decide/sync/index.ts';
import type { ReleaseDeps } from '../../deps.ts';
import { HookFailedError } from '../../errors.ts';
import { readInventory } from '../inventory-open.ts';
import { InventoryWriter } from '../inventory-writer.ts';
import type { Target } from '../target.ts';
import { removeSpentResources } from './resources.ts';
import { createHookWorkload, deleteHookWorkloads, type HookWorkloadOptions } from './workloads.ts';

export function hookWorkloadOptions(release: Release): HookWorkloadOptions {
  const ns = namespaceOf(release);
  return { releaseLabel: releaseLabelValue(ns, nameOf(release)), defaultNamespace: ns };
}

/** Creates each arming's workload, then records its entry: the observer never polls a workload not yet there. */
export async function armHooks(
  client: KubeClient,
  writer: InventoryWriter,
  armings: readonly HookArming[],
  opts: HookWorkloadOptions,
): Promise<void> {
  for (const arming of armings) {
    const { entry } = await createHookWorkload(client, arming, opts);
    await writer.recordHooks([entry]);
  }
}

/** Deletes the workloads a decision released; a failure is a note, not an error (the next run retries). */
export async function cleanUp(
  client: KubeClient,
  refs: readonly HookWorkloadRef[],
  opts: HookWorkloadOptions,
): Promise<string[]> {
  if (refs.length === 0) return [];
  const { deleted, errors } = await deleteHookWorkloads(client, refs, opts.defaultNamespace);
  const notes: string[] = [];
  if (deleted > 0) notes.push(`deleted ${deleted} finished hook workloads`);
  for (const e of errors) notes.push(`could not delete a hook workload: ${e.message}`);
  return notes;
}

async function carryOut(
  phase: 'PreSync' | 'PostSync',
  decision: PostSyncDecision,
  input: SyncHookInput,
  writer: InventoryWriter,
  part: 'whole' | 'part' = 'whole',
): Promise<SyncHookStep> {
  const opts = hookWorkloadOptions(input.release);
  const notes = 'cleanup' in decision ? await cleanUp(input.client, decision.cleanup, opts) : [];
  // Once the phase has finished, the hook resources its outcome releases go (docs/design.md#hooks).
  const outcome = phaseOutcome(decision, part);
  if (outcome !== undefined) {
    const spent = spentHookResources(input.render.objects, { [phase]: outcome });
    notes.push(...(await removeSpentResources(input.release, input.target, writer, spent)));
  }
  const gate: HookGate = hookGate(phase, decision);
  switch (gate.kind) {
    case 'proceed':
      return { kind: 'proceed', notes };
    case 'arm':
      await armHooks(input.client, writer, gate.hooks, opts);
      return { kind: 'hold', message: gate.message, notes: [...notes, gate.message] };
    case 'hold':
      return { kind: 'hold', message: gate.message, notes };
    case 'fail':
      return { kind: 'fail', error: new HookFailedError(gate.message), notes };
    default:
      return assertNever(gate);
  }
}

/** Any error of a hook step as the sync's HookFailedError (reason HookFailed). */
function asHookError(phase: string, err: unknown): HookFailedError {
  if (err instanceof HookFailedError) return err;
  return new HookFailedError(`${phase} hooks: ${errorMessage(err)}`, { cause: err });
}

export interface SyncHookInput {
  readonly release: Release;
  readonly renderRef: string;
  readonly render: Render;
  /** The target cluster's (impersonating) client: hook workloads live there. */
  readonly client: KubeClient;
  /** The target, to read and delete the hook resources a delete policy removes. */
  readonly target: Pick<Target, 'client' | 'readClient'>;
  readonly local: KubeClient;
  readonly now: number;
}

/**
 * PreSync of R, before wave 0: the waves go on only once every PreSync hook of R Succeeded. `writer` holds
 * the inventory this sync re-read: the step's own writes (armings, spent resources) go through it. With
 * `belowWeight`, only the hooks of lower weight: the hook resources of that weight go in after them.
 */
export async function preSyncStep(
  input: SyncHookInput,
  writer: InventoryWriter,
  belowWeight?: number,
): Promise<SyncHookStep> {
  try {
    const decision = planHookPhase({
      phase: 'PreSync',
      hooks: input.render.hooks,
      renderRef: input.renderRef,
      entries: writer.inventory?.hooks ?? [],
      forcedAt: forcedAtOf(input.release),
      now: input.now,
      belowWeight,
    });
    return await carryOut('PreSync', decision, input, writer, belowWeight === undefined ? 'whole' : 'part');
  } catch (err) {
    return { kind: 'fail', error: asHookError('PreSync', err), notes: [] };
  }
}

/** PostSync of R, after its last wave and the prune; `writer` holds the inventory as this sync left it. */
export async function postSyncStep(input: SyncHookInput, writer: InventoryWriter): Promise<SyncHookStep> {
  try {
    const hookEntries = writer.inventory?.hooks ?? [];
    const decision = planPostSync({
      renderRef: input.renderRef,
      objects: liveObjectsOf(input, hookEntries).map(objectKey),
      entries: writer.entries,
      healthAssessed: input.release.spec.healthAssessment !== undefined,
      hooks: input.render.hooks,
      hookEntries,
      forcedAt: forcedAtOf(input.release),
      now: input.now,
    });
    return await carryOut('PostSync', decision, input, writer);
  } catch (err) {
    return { kind: 'fail', error: asHookError('PostSync', err), notes: [] };
  }
}

/**
 * PostSync of R when an earlier pass of this attempt applied, recorded and pruned all of R and its PreSync
 * hooks are settled (a sync held for its PostSync hooks, or for health before them): only the PostSync step
 * is left, and the waves are not applied again (docs/design.md#hooks). Undefined when the inventory, read
 * now, says otherwise: the caller syncs in full.
 */
export async function postSyncAfterApply(
  input: SyncHookInput,
  selfHeal: boolean,
): Promise<SyncHookStep | undefined> {
  const parts = await readInventory(input.local, input.release);
  const inventory = parts?.inventory;
  const entries = inventory?.hooks ?? [];
  const objects = liveObjectsOf(input, entries).map(objectKey);
  if (!renderApplied({ renderRef: input.renderRef, objects, inventory, selfHeal })) return undefined;
  if (departedHooks(entries, hookDefs(input.render.hooks)).names.length > 0) return undefined;
  const pre = planHookPhase({
    phase: 'PreSync',
    hooks: input.render.hooks,
    renderRef: input.renderRef,
    entries,
    forcedAt: forcedAtOf(input.release),
    now: input.now,
  });
  if (pre.kind !== 'none' && pre.kind !== 'succeeded') return undefined;
  return postSyncStep(input, new InventoryWriter(input.local, input.release, parts));
}

/** `objects` of R (all by default) to be live by `entries`: the hook resources a delete policy removed are not. */
export function liveObjectsOf(
  input: SyncHookInput,
  entries: readonly InventoryHook[],
  objects: readonly Obj[] = input.render.objects,
): readonly Obj[] {
  return liveObjects(objects, {
    renderRef: input.renderRef,
    hooks: input.render.hooks,
    entries,
    forcedAt: forcedAtOf(input.release),
    now: input.now,
  });
}

/** With the prune: hooks R no longer has leave the inventory, and their last workloads are deleted. */
export async function pruneDepartedHooks(input: SyncHookInput, writer: InventoryWriter): Promise<number> {
  const gone = departedHooks(writer.inventory?.hooks ?? [], hookDefs(input.render.hooks));
  if (gone.names.length === 0) return 0;
  const opts = hookWorkloadOptions(input.release);
  const { errors } = await deleteHookWorkloads(input.client, gone.workloads, opts.defaultNamespace);
  // Keep the entries while a workload could not be deleted: they are the only record of it.
  if (errors.length > 0) throw errors[0];
  await writer.remove([], gone.names);
  return gone.names.length;
}

/**
 * SyncFail of R after a reconcile whose stageRender succeeded: arms them when the sync of R failed or its
 * rollout is Failed (once per render and forced sync), never on a rollback. Never changes the outcome's
 * verdict: a failure here is logged and the original failure stands. Returns notes for Events.
 */
export async function syncFailStep(
  release: Release,
  rendered: { readonly renderRef: string; readonly render: Render; readonly target: { client: KubeClient } },
  outcome: SyncFailOutcome,
  deps: Pick<ReleaseDeps, 'local' | 'now' | 'log'>,
): Promise<string[]> {
  const trigger = syncFailTrigger(outcome, rendered.renderRef);
  if (trigger.kind === 'none' || trigger.kind === 'rolledBack') return [];
  // Most renders have no SyncFail hook: no need to read the inventory then.
  if (!hookDefs(rendered.render.hooks).some((h) => h.phase === 'SyncFail')) return [];
  try {
    const inventory = await readInventory(deps.local, release);
    const decision: HookPhaseDecision = syncFailHooks({
      trigger,
      renderRef: rendered.renderRef,
      hooks: rendered.render.hooks,
      entries: inventory?.inventory.hooks ?? [],
      forcedAt: forcedAtOf(release),
      now: deps.now(),
    });
    const opts = hookWorkloadOptions(release);
    const client = rendered.target.client;
    switch (decision.kind) {
      case 'none':
        return [];
      case 'arm': {
        await armHooks(client, new InventoryWriter(deps.local, release, inventory), decision.hooks, opts);
        return [`running SyncFail hooks: ${decision.hooks.map((h) => h.hook.name).join(', ')}`];
      }
      case 'waiting':
      case 'succeeded':
      case 'failed':
        return await cleanUp(client, decision.cleanup, opts);
      default:
        return assertNever(decision);
    }
  } catch (err) {
    deps.log.warn({ err: errorMessage(err) }, 'SyncFail hooks could not be run');
    return [];
  }
}
