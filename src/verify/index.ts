// What the observer's verification step calls (docs/design.md#verification): resolve a Release's checks
// once per spec, measure a check when it is due, advance its status, and read the verification's phase.
// Everything else in src/verify is behind these.

export { ARGO_API_VERSION, TEMPLATE_KINDS } from './argo/template.ts';
export { type ArgValue, type ResolvedArgs, substituteArgs } from './args.ts';
export {
  advanceCheck,
  type CheckPlan,
  checkPhase,
  type Measured,
  measurementDue,
  measurementLine,
  newCheckStatus,
  nextMeasurementAt,
  type Soak,
  type VerificationVerdict,
  verificationPhase,
} from './decide.ts';
export { jobPollMs, jobRun, jobTimeoutMs } from './job.ts';
export { jobMeasured, type MeasureDeps, measure, type SecretLookup } from './measure.ts';
export type { QueryOutcome } from './prometheus.ts';
export {
  DEFAULT_INTERVAL_MS,
  type ResolvedCheck,
  type ResolveOutcome,
  resolveChecks,
  secretRefs,
} from './resolve.ts';
export { SharedCalls } from './shared-calls.ts';
