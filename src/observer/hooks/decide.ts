// pollHookWorkload's decision (docs/design.md#hook-polling) as a pure function over the Job or Pod read from
// the target cluster, plus the rule for which hook entries are polled at all.
import type { InventoryHook } from '../../api/types.ts';
import { type KubeEvent, lastSeen } from '../../kube/events.ts';
import { assertNever } from '../../lib/assert-never.ts';

/** The workload as read: a Job, a Pod, or nothing under the recorded name. */
export type Workload =
  | { readonly kind: 'Job'; readonly object: JobLike }
  | { readonly kind: 'Pod'; readonly object: PodLike }
  | { readonly kind: 'notFound' };

export interface JobLike {
  readonly status?: {
    readonly conditions?: readonly {
      readonly type?: string;
      readonly status?: string;
      readonly reason?: string;
      readonly message?: string;
    }[];
  };
}

interface ContainerStatusLike {
  readonly name?: string;
  readonly state?: {
    readonly terminated?: { readonly exitCode?: number; readonly reason?: string; readonly message?: string };
  };
}

export interface PodLike {
  readonly status?: {
    readonly phase?: string;
    readonly reason?: string;
    readonly message?: string;
    readonly containerStatuses?: readonly ContainerStatusLike[];
    readonly initContainerStatuses?: readonly ContainerStatusLike[];
  };
}

export type HookVerdict =
  | { readonly state: 'Succeeded'; readonly reason: 'Succeeded'; readonly message: string }
  | { readonly state: 'Failed'; readonly reason: 'Failed' | 'NotFound' | 'Timeout'; readonly message: string }
  | { readonly state: 'Running'; readonly reason: 'Running'; readonly message: string };

/** A hook is polled when it has a workload and has not finished since it was (re-)armed. */
export function shouldPoll(h: Pick<InventoryHook, 'workloadName' | 'createdAt' | 'finishedAt'>): boolean {
  if (h.workloadName === undefined || h.workloadName === '') return false;
  if (h.finishedAt === undefined) return true;
  // A createdAt after finishedAt means the controller armed the hook again.
  return h.createdAt !== undefined && Date.parse(h.createdAt) > Date.parse(h.finishedAt);
}

/**
 * A Warning Event of the hook's workload or of one of its Pods (FailedCreate, FailedScheduling, BackOff…):
 * why a workload that does not finish has not started, said at once instead of at its timeout.
 */
export interface WorkloadWarning {
  /** Kind/name of the object the Event is about. */
  readonly object: string;
  readonly reason: string;
  readonly message: string;
  /** RFC 3339, when it was last seen. */
  readonly at: string;
}

/**
 * The Warning Events of workload `name` (a Job, and the Pods it names `<name>-…`; or a Pod) among a
 * namespace's Events, newest first, one per object and reason.
 */
export function workloadWarnings(
  events: readonly KubeEvent[],
  kind: 'Job' | 'Pod',
  name: string,
): WorkloadWarning[] {
  const ours = (e: KubeEvent) => {
    const io = e.involvedObject ?? {};
    if (io.kind === kind && io.name === name) return true;
    return kind === 'Job' && io.kind === 'Pod' && (io.name ?? '').startsWith(`${name}-`);
  };
  const seen = new Set<string>();
  const out: WorkloadWarning[] = [];

  for (const e of [...events]
    .filter((x) => x.type === 'Warning' && ours(x))
    .sort((a, b) => lastSeen(b).localeCompare(lastSeen(a)))) {
    const object = `${e.involvedObject?.kind ?? '?'}/${e.involvedObject?.name ?? '?'}`;
    const key = `${object} ${e.reason ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ object, reason: e.reason ?? 'Warning', message: e.message ?? '', at: lastSeen(e) });
  }
  return out;
}

/** The newest warning as one line for a hook's message. */
export function warningLine(warnings: readonly WorkloadWarning[] | undefined): string | undefined {
  const w = warnings?.[0];
  return w === undefined ? undefined : `${w.object}: ${w.reason}: ${w.message}`;
}

export interface DecideInput {
  readonly workload: Workload;
  /** The workload's Warning Events, newest first (workloadWarnings); absent or empty: none known. */
  readonly warnings?: readonly WorkloadWarning[];
  /** RFC 3339; the timeout counts from here. */
  readonly createdAt: string | undefined;
  /** undefined: no timeout. */
  readonly timeoutMs: number | undefined;
  readonly now: Date;
}

/** The first matching row of docs/design.md#hook-polling decides. */
export function decideHook(input: DecideInput): HookVerdict {
  const w = input.workload;
  switch (w.kind) {
    case 'notFound':
      return { state: 'Failed', reason: 'NotFound', message: 'workload not found' };
    case 'Job': {
      const conds = w.object.status?.conditions ?? [];
      const complete = conds.find((c) => c.type === 'Complete' && c.status === 'True');
      if (complete !== undefined)
        return { state: 'Succeeded', reason: 'Succeeded', message: complete.message ?? '' };
      const failed = conds.find((c) => c.type === 'Failed' && c.status === 'True');
      if (failed !== undefined) {
        return {
          state: 'Failed',
          reason: 'Failed',
          message: failed.message || failed.reason || 'job failed',
        };
      }
      return running(input);
    }
    case 'Pod': {
      const s = w.object.status;
      if (s?.phase === 'Succeeded') return { state: 'Succeeded', reason: 'Succeeded', message: '' };
      if (s?.phase === 'Failed') return { state: 'Failed', reason: 'Failed', message: podFailure(w.object) };
      return running(input);
    }
    default:
      return assertNever(w);
  }
}

function running(input: DecideInput): HookVerdict {
  const created = input.createdAt === undefined ? Number.NaN : Date.parse(input.createdAt);
  const warning = warningLine(input.warnings);
  if (input.timeoutMs !== undefined && !Number.isNaN(created)) {
    if (input.now.getTime() - created >= input.timeoutMs) {
      const why = warning === undefined ? '' : `; last warning: ${warning}`;
      return {
        state: 'Failed',
        reason: 'Timeout',
        message: `did not finish within ${formatMs(input.timeoutMs)}${why}`,
      };
    }
  }
  return { state: 'Running', reason: 'Running', message: warning ?? '' };
}

/** The first terminated container's message (or reason and exit code), else the pod's own. */
function podFailure(p: PodLike): string {
  const s = p.status;
  for (const c of [...(s?.initContainerStatuses ?? []), ...(s?.containerStatuses ?? [])]) {
    const t = c.state?.terminated;
    if (t === undefined || t.exitCode === 0) continue;
    if (t.message) return `container ${c.name ?? '?'}: ${t.message}`;
    return `container ${c.name ?? '?'}: ${t.reason ?? 'terminated'} (exit code ${t.exitCode ?? '?'})`;
  }
  return s?.message || s?.reason || 'pod failed';
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
