// A job check's measurement in progress (docs/design.md#verification): the observer asked for a Job in
// the check's `run`, the controller creates it under the Release's identity, and this reads it from the
// target cluster as a hook workload is read (../hooks/poll.ts: its conditions, the Warning Events of it
// and its Pods, the timeout from when it was asked for). judgeJobRun is the decision; pollJobRun reads.
import type { JobRun } from '../../api/schema/verification.ts';
import { type JobAttempt, jobOfAttempt } from '../../api/verification-job.ts';
import type { KubeClient } from '../../kube/client.ts';
import { assertNever } from '../../lib/assert-never.ts';
import { jobMeasured, jobTimeoutMs, type Measured } from '../../verify/index.ts';
import type { HookVerdict } from '../hooks/decide.ts';
import { pollHookWorkload } from '../hooks/poll.ts';

export type JobPoll =
  /** Not finished: keep the run, say where it stands in the check's message. */
  | { readonly kind: 'running'; readonly message: string }
  /** Finished, or given up at the timeout: the measurement; the run ends. */
  | { readonly kind: 'done'; readonly measured: Measured };

/** What was read: this attempt's Job and how it stands, or none of this attempt (yet). */
export type JobRead = { readonly kind: 'absent' } | { readonly kind: 'ours'; readonly verdict: HookVerdict };

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

/**
 * The run's state: a finished Job is a measurement; a Job that is not there after the timeout (the
 * controller could not create it, or is down) is an Error, never a failure; a Job that is still running
 * says why from its newest Warning Event.
 */
export function judgeJobRun(run: JobRun, where: string, read: JobRead, nowMs: number): JobPoll {
  const job = `Job ${where}/${run.name}`;
  if (read.kind === 'absent') {
    const timeoutMs = jobTimeoutMs(run);
    if (nowMs - Date.parse(run.requestedAt) >= timeoutMs) {
      return {
        kind: 'done',
        measured: jobMeasured(
          nowMs,
          'timeout',
          `${job} was not created within ${seconds(timeoutMs)} (see the Release's Events)`,
        ),
      };
    }
    return { kind: 'running', message: `waiting for ${job} to be created` };
  }
  const v = read.verdict;
  switch (v.state) {
    case 'Succeeded':
      return { kind: 'done', measured: jobMeasured(nowMs, 'succeeded', job) };
    case 'Failed':
      switch (v.reason) {
        case 'Failed':
          return { kind: 'done', measured: jobMeasured(nowMs, 'failed', `${job}: ${v.message}`) };
        case 'Timeout':
          return { kind: 'done', measured: jobMeasured(nowMs, 'timeout', `${job} ${v.message}`) };
        case 'NotFound':
          // Gone between two reads (deleted by hand): as if never created.
          return judgeJobRun(run, where, { kind: 'absent' }, nowMs);
        default:
          return assertNever(v);
      }
    case 'Running':
      return { kind: 'running', message: v.message === '' ? `${job} running` : `${job}: ${v.message}` };
    default:
      return assertNever(v);
  }
}

/** Reads the run's Job in `namespace` of the target cluster; an older attempt's Job of that name is not ours. */
export async function pollJobRun(
  client: KubeClient,
  namespace: string,
  run: JobRun,
  attempt: JobAttempt,
  now: Date,
): Promise<JobPoll> {
  const live = await client.get<{
    metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  }>({ apiVersion: 'batch/v1', kind: 'Job', namespace, name: run.name });
  let read: JobRead = { kind: 'absent' };
  if (live !== undefined && jobOfAttempt(live.metadata, attempt)) {
    const verdict = await pollHookWorkload(
      client,
      namespace,
      {
        name: attempt.check,
        kind: 'Job',
        workloadName: run.name,
        namespace,
        createdAt: run.requestedAt,
        timeout: run.timeout,
      },
      now,
    );
    read = { kind: 'ours', verdict };
  }
  return judgeJobRun(run, namespace, read, now.getTime());
}
