// Job checks (docs/design.md#verification): a measurement is one Job, Successful when it completes and
// Failed when it fails (Argo Rollouts' job provider). The observer decides when one is due and asks for
// it in the check's status (`run`); the controller creates it under the Release's identity. Here: the
// shape a job spec must have, the args filled in, and the run that names the Job. Pure.
import { parseDuration } from '../api/duration.ts';
import {
  type CheckStatus,
  DEFAULT_JOB_CHECK_TIMEOUT,
  type JobCheck,
  type JobRun,
} from '../api/schema/verification.ts';
import { formatTime } from '../api/time.ts';
import { verificationJobName } from '../api/verification-job.ts';
import { type ResolvedArgs, substituteArgs } from './args.ts';

/** A job check's labels, annotations and spec, as JSON, are at most this long. */
export const MAX_JOB_BYTES = 64 * 1024;
/** Deeper than a JobSpec ever goes: refused rather than walked. */
const MAX_DEPTH = 32;

type Json = null | boolean | number | string | readonly Json[] | { readonly [k: string]: Json };

const isObj = (v: unknown): v is Readonly<Record<string, unknown>> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `v` with `f` applied to every string in it (keys stay); depth-bounded by the shape check first. */
function mapStrings(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapStrings(x, f)]));
  return v;
}

/** Every string of a job check's labels, annotations and spec: where `{{args.<name>}}` may be. */
export function jobStrings(job: JobCheck): string[] {
  const out: string[] = [];
  mapStrings([job.metadata ?? {}, job.spec], (s) => {
    out.push(s);
    return s;
  });
  return out;
}

function depth(v: unknown): number {
  if (Array.isArray(v)) return 1 + Math.max(0, ...v.map(depth));
  if (isObj(v)) return 1 + Math.max(0, ...Object.values(v).map(depth));
  return 0;
}

/** Why a job check's Job could not be created, naming the field under `job`; undefined when it could. */
export function jobSpecProblem(
  job: JobCheck,
): { readonly field: string; readonly message: string } | undefined {
  const size = JSON.stringify(job).length;
  if (size > MAX_JOB_BYTES)
    return { field: 'job', message: `is ${size} bytes as JSON; at most ${MAX_JOB_BYTES}` };
  if (depth(job.spec) > MAX_DEPTH)
    return { field: 'job.spec', message: `is nested deeper than ${MAX_DEPTH}` };
  const template = job.spec.template;
  if (!isObj(template))
    return { field: 'job.spec.template', message: 'is required: the Pod template the Job runs' };
  const pod = template.spec;
  if (!isObj(pod)) return { field: 'job.spec.template.spec', message: 'is required: a PodSpec' };
  const containers = pod.containers;
  if (!Array.isArray(containers) || containers.length === 0)
    return { field: 'job.spec.template.spec.containers', message: 'needs at least one container' };
  for (const [i, c] of containers.entries()) {
    if (!isObj(c) || typeof c.name !== 'string' || typeof c.image !== 'string')
      return { field: `job.spec.template.spec.containers[${i}]`, message: 'needs a name and an image' };
  }
  const restart = pod.restartPolicy;
  if (restart !== undefined && restart !== 'Never' && restart !== 'OnFailure')
    return {
      field: 'job.spec.template.spec.restartPolicy',
      message: `${JSON.stringify(restart)}: a Job's Pods restart Never or OnFailure`,
    };
  return undefined;
}

/** The measurement a check has taken so far, counted from 0: the index of its next Job. */
export const nextJobIndex = (status: CheckStatus | undefined): number =>
  (status?.successful ?? 0) + (status?.failed ?? 0) + (status?.inconclusive ?? 0);

export interface JobRunInput {
  readonly release: string;
  readonly check: string;
  readonly job: JobCheck;
  /** Plain values only: resolveChecks refuses a Secret's value in a Job (it would be stored in the spec). */
  readonly args: ResolvedArgs;
  readonly status: CheckStatus | undefined;
  readonly renderRef: string;
  readonly nowMs: number;
}

/**
 * The run of a check's next measurement: its Job named from the release, the check, the render and the
 * measurement's index, the args filled in, restartPolicy Never unless the spec says OnFailure.
 */
export function jobRun(input: JobRunInput): JobRun {
  const fill = (s: string) => {
    const out = substituteArgs(s, input.args);
    return out.ok ? out.text : s;
  };
  const job = mapStrings(input.job, fill) as JobCheck;
  const template = (job.spec.template ?? {}) as Record<string, Json>;
  const pod = (template.spec ?? {}) as Record<string, Json>;
  const spec = {
    ...job.spec,
    template: { ...template, spec: { ...pod, restartPolicy: pod.restartPolicy ?? 'Never' } },
  };
  const index = nextJobIndex(input.status);
  return {
    name: verificationJobName(input.release, input.check, input.renderRef, index),
    index,
    requestedAt: formatTime(input.nowMs),
    timeout: input.job.timeout ?? DEFAULT_JOB_CHECK_TIMEOUT,
    job: { ...(job.metadata !== undefined ? { metadata: job.metadata } : {}), spec },
  };
}

/** A running Job is read this often: half its check's interval, between 1 and 5 seconds. */
export function jobPollMs(intervalMs: number): number {
  return Math.min(5000, Math.max(1000, Math.floor(intervalMs / 2)));
}

/** A run's timeout in ms (resolveChecks checked the check's). */
export const jobTimeoutMs = (run: JobRun): number => parseDuration(run.timeout);
