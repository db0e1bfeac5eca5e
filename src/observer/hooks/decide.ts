// pollHookWorkload's decision (docs/design.md#hook-polling) as a pure function over the Job or Pod read from
// the target cluster, plus the rule for which hook entries are polled at all.
import type { InventoryHook } from '../../api/types.ts';
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

export interface DecideInput {
  readonly workload: Workload;
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
  if (input.timeoutMs !== undefined && !Number.isNaN(created)) {
    if (input.now.getTime() - created >= input.timeoutMs) {
      return {
        state: 'Failed',
        reason: 'Timeout',
        message: `did not finish within ${formatMs(input.timeoutMs)}`,
      };
    }
  }
  return { state: 'Running', reason: 'Running', message: '' };
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
