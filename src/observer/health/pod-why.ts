// Why a workload is not available, read from its Pods (docs/design.md#assessment): a workload's rule reads
// only the workload ("0 of 2 updated replicas available"), and the user had to go and find its Pods. The
// pure half: which Pods a workload selects, and the one reason among them that says most. The read of the
// Pods is the assessment's I/O (./loop/assess.ts). The words chosen are stable from pass to pass (no
// restart counts, no back-off delays, no times), so an unchanged reason costs no inventory write.
import { selectorMatches, selectorProblem } from '../../lib/selector.ts';
import { truncate } from './evaluator.ts';
import { groupOf, type KubeObject, type LabelSelector } from './types.ts';

/** At most this many characters of a why: a Pod's message can be long (one line per node group). */
export const MAX_WHY_CHARS = 300;

interface TerminatedLike {
  readonly exitCode?: number;
  readonly reason?: string;
  readonly message?: string;
}

interface ContainerStatusLike {
  readonly name?: string;
  readonly state?: {
    readonly waiting?: { readonly reason?: string; readonly message?: string };
    readonly running?: object;
    readonly terminated?: TerminatedLike;
  };
  readonly lastState?: { readonly terminated?: TerminatedLike };
}

/** The fields of a Pod the decision reads (./../target-watch.ts caches no more than these). */
export interface PodLike {
  readonly metadata?: {
    readonly name?: string;
    readonly creationTimestamp?: string;
    readonly deletionTimestamp?: string;
    readonly labels?: Readonly<Record<string, string>>;
  };
  readonly status?: {
    readonly phase?: string;
    readonly reason?: string;
    readonly message?: string;
    readonly conditions?: readonly {
      readonly type?: string;
      readonly status?: string;
      readonly reason?: string;
      readonly message?: string;
    }[];
    readonly containerStatuses?: readonly ContainerStatusLike[];
    readonly initContainerStatuses?: readonly ContainerStatusLike[];
  };
}

/**
 * A workload is explained once it has been not available this long: most become available within
 * seconds, and their Pods, still being created, would say nothing for the cost of a read (and, in the
 * observer, of a watch of their namespace started and stopped again).
 */
export const EXPLAIN_AFTER_MS = 5_000;

/** Whether an entry judged `state`, not available since `firstUnhealthy`, is explained now. */
export function explainDue(
  state: string | undefined,
  firstUnhealthy: string | undefined,
  now: Date,
): boolean {
  if (state !== 'Progressing' && state !== 'Degraded') return false;
  const since = firstUnhealthy === undefined ? Number.NaN : Date.parse(firstUnhealthy);
  return !Number.isNaN(since) && now.getTime() - since >= EXPLAIN_AFTER_MS;
}

/** Workload kinds whose Pods are read, by API group. */
const WORKLOADS: Readonly<Record<string, readonly string[]>> = {
  apps: ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'],
  batch: ['Job'],
};

/** Waiting reasons of a container on its way up: they say nothing is wrong yet. */
const STARTING = new Set(['ContainerCreating', 'PodInitializing']);

/**
 * The selector of a workload whose Pods say why it is not available, or undefined: not such a kind, or a
 * selector that is absent, empty (it would select every Pod) or invalid.
 */
export function workloadSelector(o: KubeObject): LabelSelector | undefined {
  if (!(WORKLOADS[groupOf(o.apiVersion)] ?? []).includes(o.kind)) return undefined;
  const sel = (o.spec as { selector?: LabelSelector } | undefined)?.selector;
  if (sel === undefined || sel === null || typeof sel !== 'object') return undefined;
  const empty = Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0;
  if (empty || selectorProblem(sel) !== undefined) return undefined;
  return sel;
}

/** One Pod's reason, the kinds ranked from most to least telling. */
export type PodWhy =
  | { readonly kind: 'waiting'; readonly pod: string; readonly text: string }
  | { readonly kind: 'unschedulable'; readonly pod: string; readonly text: string }
  | { readonly kind: 'terminated'; readonly pod: string; readonly text: string }
  | { readonly kind: 'failed'; readonly pod: string; readonly text: string };

const RANK: Readonly<Record<PodWhy['kind'], number>> = {
  waiting: 0,
  unschedulable: 1,
  terminated: 2,
  failed: 3,
};

/** One line: Kubernetes' messages may hold newlines. */
const line = (s: string) => s.replace(/\s+/g, ' ').trim();
const joined = (...parts: (string | undefined)[]) =>
  parts.filter((p) => p !== undefined && p !== '').join(': ');
const exit = (t: TerminatedLike) => `${t.reason || 'terminated'} (exit code ${t.exitCode ?? '?'})`;

/**
 * The most telling reason among the Pods `selector` selects: a container waiting for a reason other than
 * starting (ImagePullBackOff, ErrImagePull, CrashLoopBackOff with its last exit, CreateContainerConfigError…),
 * then PodScheduled=False, then a container that terminated with an error, then a Failed Pod; within a
 * kind the newest Pod. Ready and Succeeded Pods say nothing. One line, at most MAX_WHY_CHARS.
 */
export function whyNotAvailable(selector: LabelSelector, pods: readonly PodLike[]): string | undefined {
  let best: { readonly why: PodWhy; readonly created: string } | undefined;
  for (const p of pods) {
    if (!selectorMatches(selector, p.metadata?.labels)) continue;
    const why = podWhy(p);
    if (why === undefined) continue;
    const created = p.metadata?.creationTimestamp ?? '';
    if (best === undefined || better(why, created, best.why, best.created)) best = { why, created };
  }
  if (best === undefined) return undefined;
  return truncate(line(`pod ${best.why.pod}: ${best.why.text}`), MAX_WHY_CHARS);
}

function better(a: PodWhy, aCreated: string, b: PodWhy, bCreated: string): boolean {
  if (RANK[a.kind] !== RANK[b.kind]) return RANK[a.kind] < RANK[b.kind];
  if (aCreated !== bCreated) return aCreated > bCreated;
  return a.pod < b.pod;
}

/**
 * One Pod's most telling reason, or undefined when it is Ready, Succeeded, still starting, or being
 * deleted (its containers stopped by the deletion say nothing of the workload).
 */
export function podWhy(p: PodLike): PodWhy | undefined {
  if (p.metadata?.deletionTimestamp !== undefined) return undefined;
  const s = p.status ?? {};
  const pod = p.metadata?.name ?? '?';
  const conditions = s.conditions ?? [];
  if (s.phase === 'Succeeded') return undefined;
  if (s.phase !== 'Failed' && conditions.some((c) => c.type === 'Ready' && c.status === 'True'))
    return undefined;
  const containers = [...(s.initContainerStatuses ?? []), ...(s.containerStatuses ?? [])];
  for (const c of containers) {
    const w = c.state?.waiting;
    if (w?.reason === undefined || w.reason === '' || STARTING.has(w.reason)) continue;
    const last = c.lastState?.terminated;
    // CrashLoopBackOff's own message is its back-off delay, which grows: the last exit says why.
    const detail =
      w.reason === 'CrashLoopBackOff'
        ? last === undefined
          ? undefined
          : `last exit ${joined(exit(last), last.message)}`
        : w.message;
    return { kind: 'waiting', pod, text: `container ${c.name ?? '?'}: ${joined(w.reason, detail)}` };
  }
  const scheduled = conditions.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  if (scheduled !== undefined)
    return {
      kind: 'unschedulable',
      pod,
      text: joined(scheduled.reason || 'Unschedulable', scheduled.message),
    };
  for (const c of containers) {
    const t = c.state?.terminated ?? c.lastState?.terminated;
    if (t === undefined || t.exitCode === 0) continue;
    return { kind: 'terminated', pod, text: `container ${c.name ?? '?'}: ${joined(exit(t), t.message)}` };
  }
  if (s.phase === 'Failed') return { kind: 'failed', pod, text: joined('Failed', s.reason, s.message) };
  return undefined;
}

/** The entry's message with the why after it. */
export function withWhy(message: string, why: string | undefined): string {
  return why === undefined ? message : `${message}; ${why}`;
}

/** A Pod as a watch caches it: only what whyNotAvailable reads, so a namespace of many Pods stays small. */
export function slimPod(o: KubeObject): KubeObject {
  const p = o as unknown as PodLike;
  const s = p.status ?? {};
  // Items of a LIST or watch carry no apiVersion and kind.
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: p.metadata?.name ?? '',
      ...pick(o.metadata as Record<string, unknown>, [
        'namespace',
        'resourceVersion',
        'uid',
        'creationTimestamp',
        'deletionTimestamp',
        'labels',
      ]),
    },
    status: pick(s as Record<string, unknown>, [
      'phase',
      'reason',
      'message',
      'conditions',
      'containerStatuses',
      'initContainerStatuses',
    ]),
  } as KubeObject;
}

function pick(o: Record<string, unknown> | undefined, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (o?.[k] !== undefined) out[k] = o[k];
  return out;
}
