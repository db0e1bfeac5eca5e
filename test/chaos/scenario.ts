// What one chaos Release goes through: three inline renders, each with a ConfigMap `config` (wave 0), a
// Deployment `web` (wave 1), a ConfigMap only that render has (wave 2: it leaves with the next render, so
// every step prunes one) and a PostSync Job hook `smoke`. Renders 1 and 2 are healthy (with a deadline
// long enough that chaos cannot make them miss it); render 3's pods never become Ready and its deadline is
// short, so it must be RolledBack — to render 2, whose objects and ConfigMap contents are then what is live.
// With a Prometheus (the full run), every render also carries a verification whose check reads a traffic
// simulator without errors: renders 1 and 2 pass their soak while Prometheus is killed, render 3 never
// reaches one.
import type { Release, ReleaseSpec } from '../../src/api/types.ts';
import { hookWorkloadName } from '../../src/controller/release/decide/hooks/index.ts';
import { TEST_LABEL_NEVER_READY } from '../../src/testenv/index.ts';
import { configMap, deployment, hookJob, inlineRelease, type Manifest, manifests } from '../support/hooks.ts';
import { DEFAULT_HEALTH } from '../support/system.ts';

export type Step = 1 | 2 | 3;
export const STEPS: readonly Step[] = [1, 2, 3];

/** The label every chaos Release carries, so the suite's watches see only its own. */
export const CHAOS_LABEL = 'convoy-chaos';
export const RELEASE_NAME = 'app';
export const HOOK = 'smoke';

/** The rollout deadline of the healthy renders: far beyond what a kill or a restart delays them by. */
export const HEALTHY_DEADLINE = '5m';

export interface ScenarioOptions {
  /** failurePolicy.deadline of the unhealthy render 3. */
  readonly unhealthyDeadline: string;
  /** syncPolicy.interval. */
  readonly interval: string;
  /** A Prometheus to verify each render against (its address); unset: no verification. */
  readonly prometheus?: string;
}

/** The check's name: a VerificationFailed naming it can only come from a fault, the traffic has no errors. */
export const CHECK = 'error-rate';

/**
 * A soak long enough to meet a Prometheus kill, a check that never fails on errorless traffic, and an
 * inconclusiveLimit no outage reaches: a Prometheus that is down holds the soak and never ends it.
 */
export function chaosVerification(address: string): NonNullable<ReleaseSpec['verification']> {
  return {
    soak: '10s',
    interval: '2s',
    checks: [
      {
        name: CHECK,
        prometheus: {
          address,
          query: 'sum(rate(http_requests_total{code="500"}[30s])) / sum(rate(http_requests_total[30s]))',
          timeout: '3s',
        },
        successCondition: 'result[0] <= 0.01',
        failureCondition: 'result[0] > 0.01',
        inconclusiveLimit: 1000,
      },
    ],
  };
}

export const onlyIn = (step: Step) => `only-r${step}`;

/** The objects of render `step` (the hook included). */
export function renderObjects(step: Step): Manifest[] {
  return [
    configMap('config', 0, { version: String(step), step: `render ${step}` }),
    deployment(
      'web',
      1,
      {},
      { version: `v${step}`, ...(step === 3 ? { [TEST_LABEL_NEVER_READY]: 'true' } : {}) },
    ),
    configMap(onlyIn(step), 2, { step: String(step) }),
    hookJob(HOOK, 'PostSync'),
  ];
}

/** The part of the spec each step sets: its manifests and its deadline. */
export function stepSpec(step: Step, o: ScenarioOptions): Pick<ReleaseSpec, 'source' | 'failurePolicy'> {
  return {
    source: { inline: { manifests: manifests(renderObjects(step)) } },
    failurePolicy: { deadline: step === 3 ? o.unhealthyDeadline : HEALTHY_DEADLINE, rollback: 'OnFailure' },
  };
}

export function chaosRelease(ns: string, o: ScenarioOptions): Release {
  const r = inlineRelease(ns, RELEASE_NAME, renderObjects(1), {
    healthAssessment: DEFAULT_HEALTH,
    syncPolicy: { interval: o.interval },
    ...stepSpec(1, o),
    ...(o.prometheus === undefined ? {} : { verification: chaosVerification(o.prometheus) }),
  });
  return { ...r, metadata: { ...r.metadata, labels: { [CHAOS_LABEL]: 'true' } } };
}

/** What a Release must end with: render 3 RolledBack to render 2, render 2's objects live. */
export const FINAL_STEP: Step = 2;

/** An object as the suite compares it: ConfigMaps by their data, Deployments by their pods' version. */
export interface LiveObject {
  readonly kind: string;
  readonly name: string;
  readonly data?: Readonly<Record<string, string>>;
  readonly version?: string;
}

/** The objects render `step` applies (its hook aside), as the suite compares them. */
export function appliedObjects(step: Step): LiveObject[] {
  const out: LiveObject[] = [];
  for (const o of renderObjects(step)) {
    const meta = o.metadata as { name: string; annotations?: Record<string, string> };
    if (meta.annotations?.['convoy.kumodo.io/hook'] !== undefined) continue;
    if (o.kind === 'ConfigMap')
      out.push({ kind: 'ConfigMap', name: meta.name, data: o.data as Record<string, string> });
    else out.push({ kind: String(o.kind), name: meta.name, version: `v${step}` });
  }
  return out;
}

/**
 * What render `step` (whose renderRef is `renderRef`) leaves live in its namespace: its objects, and the
 * hook's last Job (BeforeHookCreation removed the earlier render's).
 */
export function expectedLive(step: Step, renderRef: string): LiveObject[] {
  return [...appliedObjects(step), { kind: 'Job', name: hookWorkloadName(HOOK, renderRef) }];
}
