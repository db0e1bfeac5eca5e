// The port between the verification loop and the checks themselves (src/verify): one step of a render's
// verification — read its checks (AnalysisTemplates, args, Secrets of the Release's namespace), measure
// the ones due, and fold the measurements into the status. Bounded in time: every measurement has its
// timeout, and a step never throws for a check's fault (a refusal is an inconclusive status naming the field).
import type { Measurement, VerificationStatus } from '../../api/index.ts';
import type { Release } from '../../api/types.ts';
import type { KubeClient } from '../../kube/client.ts';

export interface VerifyStep {
  /** The verification after this step; the very `prior` object when nothing changed. */
  readonly status: VerificationStatus;
  /** The measurements this step took. */
  readonly taken: readonly Measurement[];
  /** When the next measurement is due; undefined: none (the verification is final). */
  readonly nextAt: Date | undefined;
}

export interface VerifyEngine {
  step(
    release: Release,
    prior: VerificationStatus,
    now: Date,
    times: { readonly soakMs: number; readonly initialDelayMs: number; readonly intervalMs: number },
    /** The client of the Release's target cluster, where the Jobs of job checks run (read only). */
    target?: () => Promise<KubeClient>,
  ): Promise<VerifyStep>;
}
