// What a Release's status says that someone may want to hear of, as pure data: one fact per class
// (rollout, sync, drift, hook), each with a key that names (Release uid, render, transition). A
// notification is a fact whose key differs from the last one delivered for that class, so the same
// status read twice — a resync, a restart, a second watch event — never sends twice, while a new
// render, a new state or a condition that turned again does.
import { createHash } from 'node:crypto';
import type { AlertEvent, Condition, Release, Severity } from '../api/types.ts';

export const FACT_CLASSES = ['rollout', 'sync', 'drift', 'hook', 'verification'] as const;
export type FactClass = (typeof FACT_CLASSES)[number];

export interface Fact {
  readonly class: FactClass;
  readonly event: AlertEvent;
  readonly severity: Severity;
  /** Digest of (Release uid, class, render, transition): what duplicate suppression compares. */
  readonly key: string;
  /** The render the event is about (RolledBack: the render that failed). */
  readonly renderRef: string | undefined;
  readonly revision: string | undefined;
  /** RolledBack: the render applied instead (the last healthy one). */
  readonly targetRenderRef: string | undefined;
  readonly targetRevision: string | undefined;
  readonly reason: string;
  readonly message: string;
  /** When it happened, by the status (RFC 3339); undefined when the status does not say. */
  readonly at: string | undefined;
}

export const SEVERITY_OF: Readonly<Record<AlertEvent, Severity>> = {
  Progressing: 'info',
  Succeeded: 'info',
  DriftDetected: 'warning',
  Failed: 'error',
  RolledBack: 'error',
  SyncFailed: 'error',
  HookFailed: 'error',
  VerificationInconclusive: 'warning',
};

const RANK: Readonly<Record<Severity, number>> = { info: 0, warning: 1, error: 2 };

/** Whether `s` is at least `min`. */
export function atLeast(s: Severity, min: Severity): boolean {
  return RANK[s] >= RANK[min];
}

/** Ready reasons that mean a sync was tried and failed (not a hold, not a rollback). */
export const SYNC_FAILURE_REASONS: ReadonlySet<string> = new Set([
  'SourceFailed',
  'SourceTimeout',
  'RenderFailed',
  'PinNotFound',
  'ClusterNotFound',
  'DryRunFailed',
  'PersistFailed',
  'ApplyFailed',
  'PruneFailed',
]);

export function factKey(uid: string, cls: FactClass, ...parts: readonly (string | undefined)[]): string {
  return createHash('sha256')
    .update([uid, cls, ...parts.map((p) => p ?? '')].join('\0'))
    .digest('hex')
    .slice(0, 32);
}

function cond(release: Release, type: string): Condition | undefined {
  return release.status?.conditions?.find((c) => c.type === type);
}

/** Every fact the Release's status holds now, in class order. Pure. */
export function factsOf(release: Release): Fact[] {
  const uid = release.metadata.uid ?? `${release.metadata.namespace}/${release.metadata.name}`;
  const st = release.status;
  const out: Fact[] = [];
  const ro = st?.rollout;
  if (ro !== undefined) {
    const back = ro.state === 'RolledBack' ? st?.lastHealthy : undefined;
    out.push({
      class: 'rollout',
      event: ro.state,
      severity: SEVERITY_OF[ro.state],
      key: factKey(uid, 'rollout', ro.state, ro.renderRef),
      renderRef: ro.renderRef,
      revision: ro.revision,
      targetRenderRef: back?.renderRef,
      targetRevision: back?.revision,
      reason: ro.reason ?? ro.state,
      message: ro.message ?? '',
      at: ro.state === 'Progressing' ? ro.startedAt : (ro.finishedAt ?? ro.startedAt),
    });
  }
  const ready = cond(release, 'Ready');
  if (ready !== undefined && ready.status === 'False') {
    const event: AlertEvent | undefined =
      ready.reason === 'HookFailed'
        ? 'HookFailed'
        : SYNC_FAILURE_REASONS.has(ready.reason)
          ? 'SyncFailed'
          : undefined;
    if (event !== undefined) {
      const cls: FactClass = event === 'HookFailed' ? 'hook' : 'sync';
      const attempted = st?.lastAttempted ?? st?.currentRender;
      out.push({
        class: cls,
        event,
        severity: SEVERITY_OF[event],
        key: factKey(uid, cls, ready.reason, ready.lastTransitionTime, attempted?.renderRef),
        renderRef: attempted?.renderRef,
        revision: attempted?.revision,
        targetRenderRef: undefined,
        targetRevision: undefined,
        reason: ready.reason,
        message: ready.message,
        at: ready.lastTransitionTime,
      });
    }
  }
  // A rollout held because its checks could not measure: a person must accept or roll back.
  const verified = cond(release, 'Verified');
  if (verified?.status === 'False' && verified.reason === 'VerificationInconclusive') {
    out.push({
      class: 'verification',
      event: 'VerificationInconclusive',
      severity: SEVERITY_OF.VerificationInconclusive,
      key: factKey(uid, 'verification', verified.lastTransitionTime, ro?.renderRef),
      renderRef: ro?.renderRef,
      revision: ro?.revision,
      targetRenderRef: undefined,
      targetRevision: undefined,
      reason: verified.reason,
      message: `${verified.message}; accept it with convoy approve, or roll back with convoy rollback`,
      at: verified.lastTransitionTime,
    });
  }
  const drifted = cond(release, 'Drifted');
  if (drifted !== undefined && drifted.status === 'True') {
    const current = st?.currentRender ?? st?.lastAttempted;
    out.push({
      class: 'drift',
      event: 'DriftDetected',
      severity: SEVERITY_OF.DriftDetected,
      key: factKey(uid, 'drift', drifted.lastTransitionTime, current?.renderRef),
      renderRef: current?.renderRef,
      revision: current?.revision,
      targetRenderRef: undefined,
      targetRevision: undefined,
      reason: drifted.reason,
      message: drifted.message,
      at: drifted.lastTransitionTime,
    });
  }
  return out;
}

/** One line for people: what happened to which Release, with the render ids and the reason. Pure. */
export function summary(release: { namespace: string; name: string }, f: Fact): string {
  const render = f.renderRef === undefined ? '' : ` render ${f.renderRef}${rev(f.revision)}`;
  const target =
    f.targetRenderRef === undefined ? '' : `, rolled back to ${f.targetRenderRef}${rev(f.targetRevision)}`;
  const why = f.message === '' ? '' : `: ${f.message}`;
  return `${release.namespace}/${release.name} ${f.event}:${render}${target}; reason ${f.reason}${why}`;
}

function rev(revision: string | undefined): string {
  return revision === undefined || revision === '' ? '' : ` (revision ${revision.slice(0, 12)})`;
}
