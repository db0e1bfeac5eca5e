// One verification step's work for its job checks (docs/design.md#verification): a check whose
// measurement is due gets a `run` naming its Job (the controller creates it, woken by the inventory
// write); a check with a run has its Job read (./job-runs.ts) until it ends, then the run gives way to
// the measurement. A Job read that fails keeps the run, and the check's timeout still ends it.
import type { CheckStatus, JobRun, VerificationStatus } from '../../api/schema/verification.ts';
import type { Release } from '../../api/types.ts';
import { verificationJobNamespace } from '../../api/verification-job.ts';
import type { KubeClient } from '../../kube/client.ts';
import { errorMessage } from '../../lib/errors.ts';
import { type ArgValue, jobRun, type Measured, type ResolvedCheck } from '../../verify/index.ts';
import { judgeJobRun, pollJobRun } from './job-runs.ts';

/** What a step did to a job check: its run now (none: ended or never asked) and why it stands so. */
export interface RunStep {
  readonly run?: JobRun;
  readonly message?: string;
  readonly measured?: Measured;
}

export class JobSteps {
  readonly #release: Release;
  readonly #prior: VerificationStatus;
  readonly #target: () => Promise<KubeClient>;
  readonly #now: Date;

  constructor(release: Release, prior: VerificationStatus, target: () => Promise<KubeClient>, now: Date) {
    this.#release = release;
    this.#prior = prior;
    this.#target = target;
    this.#now = now;
  }

  /** The check's step: read its Job in flight, or ask for the next one when `due`; undefined: nothing. */
  async step(c: ResolvedCheck, st: CheckStatus | undefined, due: boolean): Promise<RunStep | undefined> {
    const name = c.plan.name;
    const run = st?.run;
    const namespace = verificationJobNamespace(this.#release);
    if (run === undefined) {
      if (!due || c.spec.job === undefined) return undefined;
      const args = new Map<string, ArgValue>(
        c.args.map((a) => [a.name, { value: a.value ?? '', secret: false }]),
      );
      const next = jobRun({
        release: this.#release.metadata.name ?? '',
        check: name,
        job: c.spec.job,
        args,
        status: st,
        renderRef: this.#prior.renderRef,
        nowMs: this.#now.getTime(),
      });
      return { run: next, message: `${name}: waiting for Job ${namespace}/${next.name} to be created` };
    }
    const attempt = { check: name, renderRef: this.#prior.renderRef, startedAt: this.#prior.startedAt };
    let poll: ReturnType<typeof judgeJobRun>;
    try {
      poll = await pollJobRun(await this.#target(), namespace, run, attempt, this.#now);
    } catch (err) {
      poll = judgeJobRun(run, namespace, { kind: 'absent' }, this.#now.getTime());
      if (poll.kind === 'running')
        poll = { kind: 'running', message: `cannot read Job ${namespace}/${run.name}: ${errorMessage(err)}` };
    }
    return poll.kind === 'done' ? { measured: poll.measured } : { run, message: `${name}: ${poll.message}` };
  }
}

/** The check with the step's run (or none) and its message; unchanged without a step. */
export function withRun(st: CheckStatus, step: RunStep | undefined): CheckStatus {
  if (step === undefined) return st;
  const { run: _, ...rest } = st;
  return {
    ...rest,
    ...(step.run !== undefined ? { run: step.run } : {}),
    ...(step.message !== undefined ? { message: step.message } : {}),
  };
}

/** A check that passed or failed needs no Job in flight any more: the controller deletes it. */
export function withoutFinalRun(st: CheckStatus): CheckStatus {
  return st.run !== undefined && (st.phase === 'Passed' || st.phase === 'Failed') ? withRun(st, {}) : st;
}
