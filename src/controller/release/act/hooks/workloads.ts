// The edge of the hook runner: creates a hook's Job or Pod in the target cluster (Server-Side Apply,
// field manager `convoy`) and deletes hook workloads (Background propagation, so a Job's pods go too).
// Nothing on the target owns a hook workload: the inventory records it, the release label finds it.
import { FIELD_MANAGERS } from '../../../../api/constants.ts';
import type { InventoryHook } from '../../../../api/types.ts';
import { applyObject } from '../../../../kube/apply.ts';
import type { KubeClient } from '../../../../kube/client.ts';
import { isKubeError } from '../../../../kube/errors.ts';
import { assertNever } from '../../../../lib/assert-never.ts';
import { errorMessage } from '../../../../lib/errors.ts';
import type { HookWorkloadRef } from '../../decide/hooks/cleanup.ts';
import type { HookKind } from '../../decide/hooks/defs.ts';
import { type HookArming, hookInventoryEntry } from '../../decide/hooks/plan.ts';
import {
  existingWorkloadAction,
  hookWorkloadObject,
  type LiveWorkload,
} from '../../decide/hooks/workload.ts';
import { HookFailedError } from '../../errors.ts';

export interface HookWorkloadOptions {
  /** releaseLabelValue(namespace, name) of the Release. */
  readonly releaseLabel: string;
  /** For hooks the render left without a namespace: the Release's namespace. */
  readonly defaultNamespace: string;
  /** How long to wait for a replaced workload to disappear (a Pod terminates gracefully). Default 30 s. */
  readonly goneTimeoutMs?: number;
  readonly pollMs?: number;
}

export interface CreatedHook {
  /** What to record in ReleaseInventory.hooks (manager convoy-controller), with the workload's namespace. */
  readonly entry: InventoryHook;
  /** The workload already existed for this arming (a run that died before recording it). */
  readonly adopted: boolean;
}

const API_VERSION_OF: Readonly<Record<HookKind, string>> = { Job: 'batch/v1', Pod: 'v1' };

/**
 * Creates the workload of one arming: first deletes the previous workload when the delete policy says
 * so (arming.deleteFirst), then replaces or adopts whatever exists under the new name. Record the
 * returned entry only after this resolves, so the observer never polls a workload that is not there yet.
 * Throws HookFailedError.
 */
export async function createHookWorkload(
  client: KubeClient,
  arming: HookArming,
  opts: HookWorkloadOptions,
): Promise<CreatedHook> {
  const what = `${arming.hook.phase} hook ${arming.hook.name}`;
  const obj = hookWorkloadObject(arming, opts.releaseLabel, opts.defaultNamespace);
  const ref = {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    namespace: obj.metadata.namespace,
    name: arming.workloadName,
  };
  try {
    if (arming.deleteFirst !== undefined)
      await deleteHookWorkload(client, arming.deleteFirst, opts.defaultNamespace);
    const live = await client.get<LiveWorkload>(ref);
    if (live !== undefined) {
      const action = existingWorkloadAction(arming, live, opts.releaseLabel);
      switch (action.kind) {
        case 'foreign':
          throw new HookFailedError(`${what}: ${action.message}`);
        case 'adopt':
          return {
            entry: { ...hookInventoryEntry(arming), namespace: ref.namespace, createdAt: action.createdAt },
            adopted: true,
          };
        case 'replace':
          await client.delete(ref, { propagationPolicy: 'Background', uid: live.metadata.uid });
          await waitGone(client, ref, opts);
          break;
        case 'wait':
          await waitGone(client, ref, opts);
          break;
        default:
          return assertNever(action);
      }
    }
    await applyObject(client, obj, { fieldManager: FIELD_MANAGERS.deployer, force: true });
  } catch (err) {
    if (err instanceof HookFailedError) throw err;
    const why = isKubeError(err) ? err.apiMessage : errorMessage(err);
    throw new HookFailedError(`${what}: creating ${obj.kind} ${ref.namespace}/${ref.name}: ${why}`, {
      cause: err,
    });
  }
  return { entry: { ...hookInventoryEntry(arming), namespace: ref.namespace }, adopted: false };
}

/** Deletes one hook workload; false when it was already gone. Throws KubeApiError. */
export async function deleteHookWorkload(
  client: KubeClient,
  ref: HookWorkloadRef,
  defaultNamespace: string,
): Promise<boolean> {
  return client.delete(
    {
      apiVersion: API_VERSION_OF[ref.kind],
      kind: ref.kind,
      namespace: ref.namespace ?? defaultNamespace,
      name: ref.name,
    },
    { propagationPolicy: 'Background' },
  );
}

/**
 * Deletes the workloads a decision's `cleanup` names. Failures are collected, not thrown one by one: a
 * cleanup that fails is retried at the next reconcile, which computes the same cleanup again.
 */
export async function deleteHookWorkloads(
  client: KubeClient,
  refs: readonly HookWorkloadRef[],
  defaultNamespace: string,
): Promise<{ readonly deleted: number; readonly errors: readonly Error[] }> {
  let deleted = 0;
  const errors: Error[] = [];
  for (const ref of refs) {
    try {
      if (await deleteHookWorkload(client, ref, defaultNamespace)) deleted++;
    } catch (err) {
      errors.push(err as Error);
    }
  }
  return { deleted, errors };
}

async function waitGone(
  client: KubeClient,
  ref: { apiVersion: string; kind: string; namespace?: string | undefined; name: string },
  opts: HookWorkloadOptions,
): Promise<void> {
  const timeoutMs = opts.goneTimeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  while ((await client.get(ref)) !== undefined) {
    if (Date.now() >= deadline) {
      throw new HookFailedError(
        `${ref.kind} ${ref.namespace}/${ref.name} is still being deleted after ${timeoutMs / 1000}s; the next reconcile tries again`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, opts.pollMs ?? 250));
  }
}
