// What the web UI shows of a Release, as plain JSON built from the Release and its ReleaseInventory: a
// row of the Releases page and the body of a Release page. The rollout figures come from
// progressSummary and the object tree from healthResult — the derivations `convoy watch`, `status`,
// `get` and the HTTP API use — so the page cannot disagree with them (docs/design.md#status-assembly).
// Pure.
import { API_REQUEST_ANNOTATIONS } from '../api/constants.ts';
import { parseOptionalDuration } from '../api/duration.ts';
import { byObserver, parseRequester } from '../api/requester.ts';
import { shortRevision } from '../api/revision.ts';
import type { Cluster, Condition, Release, ReleaseInventory, ReleaseSet, TriggerKind } from '../api/types.ts';
import { definedFields } from '../lib/defined.ts';
import { nameOf, namespaceOf } from '../lib/names.ts';
import { type ProgressSummary, progressSummary } from '../server/progress.ts';
import {
  type HealthWord,
  type ReleaseStateName,
  releaseState,
  type StateTone,
} from '../server/release-state.ts';
import { describeRequester } from '../server/sync.ts';
import { triggerWords } from '../server/trigger-words.ts';
import { type HealthResult, healthResult } from '../server/views.ts';
import { type RollbackOffer, rollbackOffer, type UnpinOffer, unpinOffer } from './offers.ts';
import { type VerificationView, verificationView } from './verification.ts';

export interface ReleaseRow {
  /** "namespace/name" */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  /**
   * releaseState's one state, its tone, reason and health word: what `convoy get` and the API's
   * health view say of this Release too.
   */
  readonly state: ReleaseStateName;
  readonly tone: StateTone;
  readonly reason: string;
  readonly health: HealthWord;
  readonly pinned: boolean;
  /** progressSummary's state of the current render's rollout (the Rollout section's word). */
  readonly rollout: string;
  readonly mode: string;
  readonly waves: { readonly done: number; readonly total: number };
  readonly objects: { readonly healthy: number; readonly total: number };
  /** status.revision (the REVISION column of kubectl get), else the shortened current revision. */
  readonly revision: string;
  readonly cluster: string;
  readonly message: string;
  readonly createdAt: string;
  /** The newest change the status records (a condition's transition, the rollout's start or end, an apply); '' when none. */
  readonly changedAt: string;
}

const cond = (r: Release, type: string): Condition | undefined =>
  r.status?.conditions?.find((c) => c.type === type);

function revisionOf(r: Release): string {
  const full = r.status?.currentRender?.revision ?? r.status?.lastAttempted?.revision;
  return r.status?.revision ?? (full === undefined ? '-' : shortRevision(full));
}

/** The newest of the times the status records; ISO strings of one format compare as times. */
function changedAt(r: Release): string {
  const s = r.status;
  const times = [
    ...(s?.conditions ?? []).map((c) => c.lastTransitionTime),
    s?.rollout?.startedAt,
    s?.rollout?.finishedAt,
    s?.lastAttempted?.time,
    ...(s?.history ?? []).map((h) => h.appliedAt ?? h.attemptedAt),
  ].filter((t): t is string => t !== undefined && t !== '' && !Number.isNaN(Date.parse(t)));
  return times.reduce((a, b) => (a === '' || Date.parse(b) > Date.parse(a) ? b : a), '');
}

export function releaseKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export function releaseRow(r: Release, inv: ReleaseInventory | undefined, p?: ProgressSummary): ReleaseRow {
  const progress = p ?? progressSummary(r, inv);
  const namespace = namespaceOf(r);
  const name = nameOf(r);
  return {
    key: releaseKey(namespace, name),
    namespace,
    name,
    ...releaseState(r),
    rollout: progress.state,
    mode: r.spec.syncPolicy?.mode ?? 'Auto',
    waves: { done: progress.waves.done, total: progress.waves.total },
    objects: { healthy: progress.objects.healthy, total: progress.objects.total },
    revision: revisionOf(r),
    cluster: r.spec.cluster?.name ?? 'in-cluster',
    message: r.status?.message ?? progress.message,
    createdAt: r.metadata.creationTimestamp ?? '',
    changedAt: changedAt(r),
  };
}

/** One step of the rollout timeline, newest first. */
export interface TimelineItem {
  readonly time: string;
  /**
   * render: a render applied (history); rollout: the current rollout; attempt: a failed attempt;
   * trigger: a person's or a push's request; wakeup: the observer waking the controller (not a request).
   */
  readonly kind: 'render' | 'rollout' | 'attempt' | 'trigger' | 'wakeup';
  readonly title: string;
  readonly renderRef?: string;
  readonly revision?: string;
  readonly result?: string;
  readonly reason?: string;
  readonly message?: string;
  /** When the rollout is judged (startedAt + failurePolicy.deadline). */
  readonly deadline?: string;
  /** A render's or an attempt's: who or what made convoy attempt it, as the controller recorded it (triggerOf). */
  readonly trigger?: Trigger;
}

export interface Trigger {
  /** The recorded kind as the page groups it: a person's sync or approval are both "requested". */
  readonly kind:
    | 'first'
    | 'source'
    | 'spec'
    | 'requested'
    | 'forced'
    | 'pin'
    | 'rollback'
    | 'resync'
    | 'unknown';
  readonly text: string;
}

type HistoryEntry = NonNullable<NonNullable<Release['status']>['history']>[number];

const UI_KIND: Readonly<Record<TriggerKind, Trigger['kind']>> = {
  Created: 'first',
  Source: 'source',
  Spec: 'spec',
  SyncRequest: 'requested',
  ForcedSync: 'forced',
  Approval: 'requested',
  Pin: 'pin',
  Rollback: 'rollback',
  Resync: 'resync',
};

const { sync, approve, force } = API_REQUEST_ANNOTATIONS;

/** " by alice" for a *-by annotation the API wrote (docs/http-api.md#post-sync), else nothing. */
const byText = (value: string | undefined): string => {
  const by = parseRequester(value);
  return by === undefined ? '' : ` by ${describeRequester(by)}`;
};

/**
 * Who or what made convoy attempt a render, exactly as the controller recorded it with the history
 * entry (docs/design.md#history-and-triggers) — never derived from the Release's current annotations or
 * spec, which a later action changes; an entry from before triggers were recorded says "unknown".
 */
export function triggerOf(e: Pick<HistoryEntry, 'revision' | 'trigger'>): Trigger {
  return {
    kind: e.trigger === undefined ? 'unknown' : UI_KIND[e.trigger.kind],
    text: triggerWords(e.trigger, e.revision),
  };
}

const plus = (time: string | undefined, ms: number | undefined): string | undefined => {
  if (time === undefined || ms === undefined) return undefined;
  const t = Date.parse(time);
  return Number.isNaN(t) ? undefined : new Date(t + ms).toISOString();
};

function deadlineMs(r: Release): number | undefined {
  try {
    return parseOptionalDuration(r.spec.failurePolicy?.deadline);
  } catch {
    // An invalid deadline is the controller's InvalidSpec to report (its Ready condition says so); the
    // timeline shows none rather than a made-up time.
    return undefined;
  }
}

/** The rollout timeline: each render applied with its result, the current rollout, a failed attempt, the requests that triggered them. */
export function timeline(r: Release): TimelineItem[] {
  const s = r.status;
  const items: TimelineItem[] = [];
  const ms = deadlineMs(r);
  const history = s?.history ?? [];
  for (const [i, h] of history.entries()) {
    const trigger = triggerOf(h);
    // A render without a result that a newer one followed: its rollout never ended (or none was
    // followed); it was superseded, which the page says rather than leaving it looking current.
    const result = h.result ?? (i < history.length - 1 ? 'Superseded' : undefined);
    items.push({
      time: h.appliedAt ?? h.attemptedAt ?? '',
      kind: 'render',
      title:
        h.appliedAt === undefined
          ? `revision ${shortRevision(h.revision)} not applied`
          : `applied revision ${shortRevision(h.revision)}`,
      renderRef: h.renderRef,
      revision: h.revision,
      ...(result === undefined ? {} : { result }),
      ...(h.reason === undefined ? {} : { reason: h.reason }),
      ...(trigger === undefined ? {} : { trigger }),
    });
  }
  const ro = s?.rollout;
  if (ro !== undefined) {
    const deadline = plus(ro.startedAt, ms);
    // A RolledBack rollout: what ended it is the rollback's own entry (the last healthy render re-applied,
    // recorded after the rolled-back render's); any other rollout: its render's recorded trigger.
    const own = history.findLastIndex((h) => h.renderRef === ro.renderRef);
    const back =
      ro.state === 'RolledBack'
        ? history.slice(own + 1).findLast((h) => h.trigger?.kind === 'Rollback')
        : undefined;
    const entry = back ?? history[own];
    const trigger = entry === undefined ? undefined : triggerOf(entry);
    items.push({
      time: ro.finishedAt ?? ro.startedAt ?? '',
      kind: 'rollout',
      title: ro.state === 'RolledBack' ? 'rolled back' : `rollout ${ro.state}`,
      renderRef: ro.renderRef,
      ...(ro.revision === undefined ? {} : { revision: ro.revision }),
      result: ro.state,
      ...(ro.reason === undefined ? {} : { reason: ro.reason }),
      ...(ro.message === undefined ? {} : { message: ro.message }),
      ...(deadline === undefined ? {} : { deadline }),
      ...(trigger === undefined ? {} : { trigger }),
    });
  }
  const la = s?.lastAttempted;
  const ready = cond(r, 'Ready');
  if (la !== undefined && !la.applied) {
    items.push({
      time: la.time,
      kind: 'attempt',
      title: 'attempt not applied',
      renderRef: la.renderRef,
      revision: la.revision,
      ...(la.trigger === undefined ? {} : { trigger: triggerOf(la) }),
      ...(la.reason === undefined ? {} : { reason: la.reason }),
      ...(la.message === undefined ? {} : { message: la.message }),
    });
  } else if (ready?.status === 'False' && ready.lastTransitionTime !== undefined) {
    items.push({
      time: ready.lastTransitionTime,
      kind: 'attempt',
      title: 'not ready',
      ...(ready.reason === undefined ? {} : { reason: ready.reason }),
      ...(ready.message === undefined ? {} : { message: ready.message }),
    });
  }
  const a = r.metadata.annotations ?? {};
  const triggers = [
    [sync, 'sync requested'],
    [force, 'forced sync requested'],
  ] as const;
  for (const [keys, title] of triggers) {
    const t = a[keys.value];
    if (t === undefined || t === '') continue;
    if (keys === sync && byObserver(a[keys.by])) {
      items.push({
        time: t,
        kind: 'wakeup',
        title: 'the observer woke the controller (a health edge: no one asked for a sync)',
      });
    } else items.push({ time: t, kind: 'trigger', title: `${title}${byText(a[keys.by])}` });
  }
  const approved = a[approve.value];
  if (approved !== undefined && approved !== '') {
    items.push({
      time: a[sync.value] ?? '',
      kind: 'trigger',
      title: `render approved${byText(a[approve.by])}`,
      renderRef: approved,
    });
  }
  // As times, not text: "…:20Z" (the API's seconds) and "…:20.512Z" (a request's milliseconds) compare
  // wrong as strings; an item without a time goes last.
  const at = (t: string) => {
    const ms = Date.parse(t);
    return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
  };
  return items.sort((x, y) => at(y.time) - at(x.time));
}

export interface DriftView {
  readonly drifted: number;
  readonly total: number;
  readonly objects: readonly { readonly object: string; readonly message: string }[];
}

export function driftView(r: Release, inv: ReleaseInventory | undefined): DriftView {
  const objects = (inv?.entries ?? [])
    .filter((e) => e.drifted === true)
    .map((e) => ({
      object: `${e.kind}${e.group === '' ? '' : `.${e.group}`} ${e.namespace === '' ? '' : `${e.namespace}/`}${e.name}`,
      message: e.driftMessage ?? '',
    }));
  return {
    drifted: r.status?.driftSummary?.drifted ?? objects.length,
    total: r.status?.driftSummary?.total ?? inv?.entries?.length ?? 0,
    objects,
  };
}

export interface ReleaseDetail {
  readonly row: ReleaseRow;
  readonly source: string;
  readonly policy: {
    readonly mode: string;
    readonly suspend: boolean;
    readonly pin?: string;
    readonly deadline?: string;
    readonly rollback?: string;
  };
  readonly currentRender?: { readonly renderRef: string; readonly revision: string };
  readonly lastHealthy?: { readonly renderRef: string; readonly revision: string; readonly time: string };
  /** A Manual-mode Release whose current render is not the one applied: approve would apply it. */
  readonly awaitingApproval: boolean;
  readonly conditions: readonly Condition[];
  readonly progress: ProgressSummary;
  readonly health: HealthResult;
  readonly timeline: readonly TimelineItem[];
  readonly drift: DriftView;
  /** Rollback and Unpin as the page offers them, with their consequence (offers.ts). */
  readonly offers: { readonly rollback: RollbackOffer; readonly unpin: UnpinOffer };
  /** The rollout of the current render, with the time the controller judges it (rolloutView). */
  readonly rollout?: RolloutView;
  /** The verification of the rollout's render (verification.ts): its phase, checks and measurements. */
  readonly verification?: VerificationView;
}

/** status.rollout of the current render, and when it is judged: startedAt + failurePolicy.deadline. */
export interface RolloutView {
  readonly state: string;
  readonly renderRef: string;
  readonly revision?: string;
  readonly startedAt?: string;
  readonly deadlineAt?: string;
  /** What a failure at the deadline does: roll back to this render, or only mark it Failed. */
  readonly onFailure:
    | { readonly kind: 'rollback'; readonly renderRef: string; readonly revision: string }
    | { readonly kind: 'fail'; readonly why: string };
}

/** The rollout of the current render while it is followed, with what happens at its deadline. */
export function rolloutView(r: Release): RolloutView | undefined {
  const s = r.status;
  const ro = s?.rollout;
  if (ro === undefined || ro.renderRef !== (s?.currentRender?.renderRef ?? ro.renderRef)) return undefined;
  const deadlineAt = plus(ro.startedAt, deadlineMs(r));
  const lh = s?.lastHealthy;
  const never = r.spec.failurePolicy?.rollback === 'Never';
  const onFailure: RolloutView['onFailure'] =
    !never && lh !== undefined && lh.renderRef !== ro.renderRef
      ? { kind: 'rollback', renderRef: lh.renderRef, revision: shortRevision(lh.revision) }
      : {
          kind: 'fail',
          why: never
            ? 'failurePolicy.rollback is Never'
            : lh === undefined
              ? 'no render was healthy before: nothing to roll back to'
              : 'the last healthy render is this one',
        };
  return {
    state: ro.state,
    renderRef: ro.renderRef,
    ...(ro.revision === undefined ? {} : { revision: shortRevision(ro.revision) }),
    ...(ro.startedAt === undefined ? {} : { startedAt: ro.startedAt }),
    ...(deadlineAt === undefined ? {} : { deadlineAt }),
    onFailure,
  };
}

function sourceLine(r: Release): string {
  const s = r.spec.source;
  if (s.git !== undefined) {
    const ref = s.git.ref?.branch ?? s.git.ref?.tag ?? s.git.ref?.commit ?? 'default branch';
    return `git ${s.git.url} @ ${ref}${s.git.path ? ` path ${s.git.path}` : ''}`;
  }
  if (s.oci !== undefined) return `oci ${s.oci.url}`;
  if (s.chart !== undefined) return `chart ${s.chart.name} from ${s.chart.url}`;
  if (s.inline !== undefined) return 'inline manifests';
  return '-';
}

export function releaseDetail(r: Release, inv: ReleaseInventory | undefined): ReleaseDetail {
  const health = healthResult(r, inv);
  const s = r.status;
  const mode = r.spec.syncPolicy?.mode ?? 'Auto';
  const current = s?.currentRender;
  const rollout = rolloutView(r);
  const verification = verificationView(r, inv);
  return {
    row: releaseRow(r, inv, health.progress),
    source: sourceLine(r),
    policy: {
      mode,
      suspend: r.spec.suspend === true,
      ...(r.spec.pin === undefined ? {} : { pin: r.spec.pin.renderRef }),
      ...(r.spec.failurePolicy === undefined
        ? {}
        : {
            deadline: r.spec.failurePolicy.deadline,
            rollback: r.spec.failurePolicy.rollback ?? 'OnFailure',
          }),
    },
    ...(current === undefined
      ? {}
      : { currentRender: { renderRef: current.renderRef, revision: current.revision } }),
    ...(s?.lastHealthy === undefined
      ? {}
      : {
          lastHealthy: {
            renderRef: s.lastHealthy.renderRef,
            revision: s.lastHealthy.revision,
            time: s.lastHealthy.time,
          },
        }),
    awaitingApproval:
      mode === 'Manual' && current !== undefined && current.renderRef !== s?.lastSuccessful?.renderRef,
    conditions: s?.conditions ?? [],
    progress: health.progress,
    health,
    timeline: timeline(r),
    drift: driftView(r, inv),
    offers: { rollback: rollbackOffer(r), unpin: unpinOffer(r) },
    ...(rollout === undefined ? {} : { rollout }),
    ...(verification === undefined ? {} : { verification }),
  };
}

export interface ClusterRow {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly ready: string;
  readonly reason: string;
  readonly message: string;
  readonly wave: string;
  readonly paused: boolean;
  readonly serverVersion: string;
}

export function clusterRow(c: Cluster): ClusterRow {
  const ready = c.status?.conditions?.find((x) => x.type === 'Ready');
  return {
    key: releaseKey(namespaceOf(c), nameOf(c)),
    namespace: namespaceOf(c),
    name: nameOf(c),
    ready: ready?.status ?? '-',
    reason: ready?.reason ?? '',
    message: ready?.message ?? '',
    wave: c.spec.wave === undefined ? '-' : String(c.spec.wave),
    paused: c.spec.paused === true,
    serverVersion: c.status?.serverVersion ?? '',
  };
}

export interface ReleaseSetRow {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  /** summary.ready: succeeded/total clusters (the READY column). */
  readonly ready: string;
  readonly readyCondition: string;
  readonly revision: string;
  readonly train?: {
    readonly state: string;
    readonly revision: string;
    readonly wave?: number;
    readonly reason?: string;
    readonly message?: string;
    readonly failedCluster?: string;
  };
  readonly message: string;
  readonly members: readonly {
    readonly cluster: string;
    readonly wave: number;
    readonly state: string;
    readonly health: string;
    readonly release?: string;
    readonly message: string;
  }[];
}

export function releaseSetRow(s: ReleaseSet): ReleaseSetRow {
  const st = s.status;
  const t = st?.train;
  return {
    key: releaseKey(namespaceOf(s), nameOf(s)),
    namespace: namespaceOf(s),
    name: nameOf(s),
    ready: st?.summary?.ready ?? '-',
    readyCondition: st?.conditions?.find((c) => c.type === 'Ready')?.status ?? '-',
    revision: st?.revision ?? '-',
    ...(t === undefined
      ? {}
      : {
          train: definedFields({
            state: t.state,
            revision: t.revision,
            wave: t.wave,
            reason: t.reason,
            message: t.message,
            failedCluster: t.failedCluster,
          }),
        }),
    message: st?.message ?? '',
    members: (st?.clusters ?? []).map((m) => ({
      cluster: m.cluster,
      wave: m.wave,
      state: m.state,
      health: m.health ?? '-',
      ...(m.release === undefined ? {} : { release: m.release }),
      message: m.message ?? '',
    })),
  };
}
