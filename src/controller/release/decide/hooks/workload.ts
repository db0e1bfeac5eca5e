// The hook workload as convoy creates it, and what to do when a workload of that name already exists.
// Pure; workloads.ts does the I/O. The workload carries who armed it and when, so a controller that
// crashed between creating it and recording it can tell its own run (adopt) from an older one (replace).
// Annotations convoy puts on hook workloads (candidates for src/api/constants.ts). The render's own
// convoy.kumodo.io/hook annotation stays too: it is what keeps the orphan scan away from them.
import {
  ANNOTATION_HOOK_CREATED_AT,
  ANNOTATION_HOOK_NAME,
  ANNOTATION_HOOK_RENDER_REF,
  LABEL_RELEASE,
} from '../../../../api/constants.ts';
import type { InventoryHook } from '../../../../api/types.ts';
import type { Obj } from '../../../../render/types.ts';
import type { HookArming } from './plan.ts';

export { ANNOTATION_HOOK_CREATED_AT, ANNOTATION_HOOK_NAME, ANNOTATION_HOOK_RENDER_REF };

/**
 * The render's Job or Pod renamed to the arming's workload name, labelled with its Release and
 * annotated with the arming. A Pod without restartPolicy gets Never: the default (Always) would restart
 * it forever and the hook could never finish. Both get spec.activeDeadlineSeconds shortly after the
 * hook's timeout (workloadDeadlineSeconds), so a hook that convoy counted as failed also stops running
 * in the cluster — the Job controller, or the kubelet for a Pod, ends it — instead of running on unseen.
 */
export function hookWorkloadObject(arming: HookArming, releaseLabel: string, defaultNamespace: string): Obj {
  const src = arming.hook.object;
  const metadata = {
    ...src.metadata,
    name: arming.workloadName,
    namespace: src.metadata.namespace ?? defaultNamespace,
    labels: { ...src.metadata.labels, [LABEL_RELEASE]: releaseLabel },
    annotations: {
      ...src.metadata.annotations,
      [ANNOTATION_HOOK_NAME]: arming.hook.name,
      [ANNOTATION_HOOK_RENDER_REF]: arming.renderRef,
      [ANNOTATION_HOOK_CREATED_AT]: arming.createdAt,
    },
  };
  const spec: Record<string, unknown> = { ...((src as { spec?: Record<string, unknown> }).spec ?? {}) };
  spec.activeDeadlineSeconds = workloadDeadlineSeconds(spec.activeDeadlineSeconds, arming.hook.timeoutMs);
  if (arming.hook.kind === 'Pod' && spec.restartPolicy === undefined) spec.restartPolicy = 'Never';
  return { ...src, metadata, spec } as Obj;
}

/**
 * Seconds past the hook's timeout before the cluster ends the workload. convoy's own timeout decides
 * the hook's outcome (reason Timeout, counted from arming); the workload's deadline counts from its own
 * start, a little later, so the margin keeps the cluster from ending it first and racing that verdict.
 */
export const WORKLOAD_DEADLINE_MARGIN_S = 10;

/**
 * The workload's activeDeadlineSeconds: the hook's timeout in whole seconds plus the margin, or the
 * render's own when that is a positive integer and sooner. Pure.
 */
export function workloadDeadlineSeconds(own: unknown, timeoutMs: number): number {
  const hook = Math.max(1, Math.ceil(timeoutMs / 1000)) + WORKLOAD_DEADLINE_MARGIN_S;
  return typeof own === 'number' && Number.isInteger(own) && own > 0 && own < hook ? own : hook;
}

/** The parts of a live workload the decision reads. */
export interface LiveWorkload {
  readonly metadata: {
    readonly uid?: string;
    readonly deletionTimestamp?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
}

export type ExistingAction =
  /** Our workload for this very arming, created by a run that died before recording it: keep it. */
  | { readonly kind: 'adopt'; readonly createdAt: string }
  /** An earlier run under the same name: delete it, wait until it is gone, create the new one. */
  | { readonly kind: 'replace' }
  /** Already being deleted: wait until it is gone, then create. */
  | { readonly kind: 'wait' }
  /** Not convoy's workload for this hook of this Release: touch nothing. */
  | { readonly kind: 'foreign'; readonly message: string };

export function existingWorkloadAction(
  arming: HookArming,
  live: LiveWorkload,
  releaseLabel: string,
): ExistingAction {
  const md = live.metadata;
  const ann = md.annotations ?? {};
  if (md.labels?.[LABEL_RELEASE] !== releaseLabel || ann[ANNOTATION_HOOK_NAME] !== arming.hook.name) {
    return {
      kind: 'foreign',
      message: `${arming.hook.kind} ${arming.workloadName} exists and is not the workload of hook ${arming.hook.name} of this Release`,
    };
  }
  if (md.deletionTimestamp !== undefined) return { kind: 'wait' };
  const created = ann[ANNOTATION_HOOK_CREATED_AT];
  if (
    !arming.rearm &&
    ann[ANNOTATION_HOOK_RENDER_REF] === arming.renderRef &&
    created !== undefined &&
    newerThanRecorded(created, arming.previous)
  ) {
    return { kind: 'adopt', createdAt: created };
  }
  return { kind: 'replace' };
}

/**
 * Created after everything the inventory knows of the hook — its recorded arming and that arming's
 * result — so a run nobody recorded, whose createdAt can stand as the entry's (armingCreatedAt's rule).
 */
function newerThanRecorded(created: string, previous: InventoryHook | undefined): boolean {
  const at = Date.parse(created);
  if (Number.isNaN(at)) return false;
  for (const t of [previous?.createdAt, previous?.finishedAt]) {
    const known = t === undefined ? Number.NaN : Date.parse(t);
    if (!Number.isNaN(known) && at < Math.floor(known / 1000) * 1000 + 1000) return false;
  }
  return true;
}
