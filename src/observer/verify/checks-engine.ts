// The verification engine the observer runs (docs/design.md#verification): one step of a render's
// verification over src/verify — read the Release's checks (its AnalysisTemplates, args, and the Secrets
// of its own namespace only), measure the ones due at once, fold the measurements in. A job check's
// measurement spans passes: its Job is asked for, then read until it ends (./job-steps.ts). A spec that
// cannot be resolved, a missing template or Secret: an Inconclusive status naming the field, never a
// failure, so bad input never rolls back.
import type { CheckStatus, VerificationStatus } from '../../api/index.ts';
import type { Release } from '../../api/types.ts';
import type { KubeClient } from '../../kube/client.ts';
import { errorMessage } from '../../lib/errors.ts';
import { namespaceOf } from '../../lib/names.ts';
import {
  ARGO_API_VERSION,
  advanceCheck,
  jobPollMs,
  type Measured,
  measure,
  measurementDue,
  newCheckStatus,
  nextMeasurementAt,
  type QueryOutcome,
  type ResolvedCheck,
  resolveChecks,
  SharedCalls,
  type Soak,
  secretRefs,
  verificationPhase,
} from '../../verify/index.ts';
import type { VerifyEngine, VerifyStep } from './engine.ts';
import { JobSteps, type RunStep, withoutFinalRun, withRun } from './job-steps.ts';

export interface ChecksEngineOptions {
  readonly client: KubeClient;
  /** Identical Prometheus queries of all Releases share one call (default: a shared cache of its own). */
  readonly prometheusCalls?: SharedCalls<QueryOutcome>;
}

/** Why the checks cannot run: the field and what to do, shown as the verification's message. */
class Unresolved extends Error {}

export class ChecksEngine implements VerifyEngine {
  readonly #client: KubeClient;
  readonly #calls: SharedCalls<QueryOutcome>;

  constructor(opts: ChecksEngineOptions) {
    this.#client = opts.client;
    this.#calls = opts.prometheusCalls ?? new SharedCalls<QueryOutcome>();
  }

  async step(
    release: Release,
    prior: VerificationStatus,
    now: Date,
    times: { readonly soakMs: number; readonly initialDelayMs: number; readonly intervalMs: number },
    target: () => Promise<KubeClient> = async () => this.#client,
  ): Promise<VerifyStep> {
    const nowMs = now.getTime();
    let checks: readonly ResolvedCheck[];
    try {
      checks = await this.#resolve(release);
    } catch (err) {
      if (!(err instanceof Unresolved)) throw err;
      return unresolved(prior, err.message, nowMs + times.intervalMs);
    }
    // The soak's measurements begin initialDelay after every object was Healthy, when the metrics cover
    // the new render only; the soak runs its full length from then.
    const soak: Soak = {
      startedAtMs: Date.parse(prior.startedAt) + times.initialDelayMs,
      soakMs: times.soakMs,
    };
    const before = new Map((prior.checks ?? []).map((c) => [c.name, c]));
    const due = checks.filter((c) => {
      const st = before.get(c.plan.name);
      return st === undefined || measurementDue(c.plan, st, soak, nowMs);
    });
    const measured = due.filter((c) => c.plan.provider !== 'job');
    const secrets =
      measured.length === 0
        ? new Map<string, Record<string, string>>()
        : await this.#secrets(release, measured);
    const taken = new Map<string, Measured>();
    const runs = new Map<string, RunStep>();
    const jobs = new JobSteps(release, prior, target, now);
    await Promise.all([
      ...measured.map(async (c) => {
        const m = await measure(c, (ref) => decoded(secrets.get(ref.name)?.[ref.key]), {
          prometheusCalls: this.#calls,
          now: () => Date.now(),
        });
        taken.set(c.plan.name, m);
      }),
      ...checks
        .filter((c) => c.plan.provider === 'job')
        .map(async (c) => {
          const st = before.get(c.plan.name);
          const step = await jobs.step(c, st, due.includes(c));
          if (step === undefined) return;
          if (step.measured !== undefined) taken.set(c.plan.name, step.measured);
          runs.set(c.plan.name, step);
        }),
    ]);
    const after: CheckStatus[] = checks.map((c) =>
      withoutFinalRun(
        advanceCheck(
          c.plan,
          withRun(before.get(c.plan.name) ?? newCheckStatus(c.plan), runs.get(c.plan.name)),
          soak,
          Date.now(),
          taken.get(c.plan.name),
        ),
      ),
    );
    const verdict = verificationPhase(after);
    const final = verdict.phase === 'Passed' || verdict.phase === 'Failed';
    const status: VerificationStatus = {
      renderRef: prior.renderRef,
      startedAt: prior.startedAt,
      phase: verdict.phase,
      reason: verdict.reason,
      message: verdict.message,
      ...(final ? { finishedAt: prior.finishedAt ?? now.toISOString() } : {}),
      checks: after,
    };
    const next = checks
      .map((c, i) => {
        const st = after[i] as CheckStatus;
        // A Job in flight is read again soon; the next one is asked for once it ended.
        return st.run !== undefined
          ? nowMs + jobPollMs(c.plan.intervalMs)
          : nextMeasurementAt(c.plan, st, soak);
      })
      .filter((t): t is number => t !== undefined);
    // The soak's end decides Passed without a measurement: come back then too.
    const soakEnd = soak.startedAtMs + soak.soakMs;
    if (!final && soakEnd > nowMs) next.push(soakEnd);
    const nextAt = final || next.length === 0 ? undefined : new Date(Math.max(nowMs, Math.min(...next)));
    return {
      status: sameStatus(prior, status) ? prior : status,
      taken: [...taken.values()].map((m) => ({ at: new Date(m.atMs).toISOString(), phase: m.phase })),
      nextAt,
    };
  }

  /** The Release's checks: its own and its templates' metrics, resolved; Unresolved names the field. */
  async #resolve(release: Release): Promise<readonly ResolvedCheck[]> {
    const spec = release.spec.verification;
    if (spec === undefined) throw new Unresolved('spec.verification is not set');
    const templates = await Promise.all(
      (spec.templateRefs ?? []).map(async (ref, i) => {
        const kind = ref.clusterScope === true ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate';
        const namespace = ref.clusterScope === true ? undefined : namespaceOf(release);
        let t: unknown;
        try {
          t = await this.#client.get({ apiVersion: ARGO_API_VERSION, kind, namespace, name: ref.name });
        } catch (err) {
          throw new Unresolved(
            `spec.verification.templateRefs[${i}]: cannot read ${kind} ${ref.name}: ${errorMessage(err)} (is Argo Rollouts' CRD installed?)`,
          );
        }
        if (t === undefined) {
          const where = namespace === undefined ? '' : ` in namespace ${namespace}`;
          throw new Unresolved(`spec.verification.templateRefs[${i}]: ${kind} ${ref.name} not found${where}`);
        }
        return t;
      }),
    );
    const out = resolveChecks(spec, templates);
    if (!out.ok) throw new Unresolved(`${out.field}: ${out.message}`);
    return out.checks;
  }

  /** The Secrets the due checks name, read from the Release's namespace only; a missing one is absent. */
  async #secrets(
    release: Release,
    checks: readonly ResolvedCheck[],
  ): Promise<Map<string, Record<string, string>>> {
    const names = new Set(checks.flatMap((c) => secretRefs(c).map((r) => r.name)));
    const out = new Map<string, Record<string, string>>();
    await Promise.all(
      [...names].map(async (name) => {
        const s = await this.#client.get<{ data?: Record<string, string> }>({
          apiVersion: 'v1',
          kind: 'Secret',
          namespace: namespaceOf(release),
          name,
        });
        if (s?.data !== undefined) out.set(name, s.data);
      }),
    );
    return out;
  }
}

function decoded(b64: string | undefined): string | undefined {
  return b64 === undefined ? undefined : Buffer.from(b64, 'base64').toString('utf8');
}

/** The verification held Inconclusive with the reason the checks cannot run (re-read at the interval). */
function unresolved(prior: VerificationStatus, message: string, nextMs: number): VerifyStep {
  // No Job is asked for while the checks cannot be read: the controller deletes those in flight.
  const status: VerificationStatus = {
    ...prior,
    phase: 'Inconclusive',
    reason: 'InvalidVerification',
    message,
    ...(prior.checks !== undefined ? { checks: prior.checks.map((c) => withRun(c, {})) } : {}),
  };
  return { status: sameStatus(prior, status) ? prior : status, taken: [], nextAt: new Date(nextMs) };
}

function sameStatus(a: VerificationStatus, b: VerificationStatus): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
