// The pure decisions of convoy's progressive rollout, for the release controller's reconcile and status
// assembly. No I/O here: every function maps plain readonly data to a decision.
export {
  type AssembleInput,
  assembleStatus,
  CONDITION_ROLLOUT_SUCCEEDED,
  type OutcomeAttempt,
  type OutcomeRollout,
  type ReconcileOutcome,
  type RenderVerdict,
  type RolloutStatusFields,
} from './assemble-status.ts';
export { type ConditionUpdate, setCondition } from './conditions.ts';
export { deadlineVerdict, syncFailureOf } from './deadline-verdict.ts';
export {
  type Plan,
  type PlanInput,
  planRollout,
  type RolloutAction,
  startRolloutClock,
  type Transition,
} from './plan-rollout.ts';
export { RolloutReason, rollbackBlocker, rollbackEligible } from './reasons.ts';
export { elapsedSince, formatDuration, formatTime } from './time.ts';
export { type RolloutTransition, rolloutTransition } from './transition.ts';
export * from './types.ts';
export {
  type Verdict,
  type VerdictInput,
  VerdictReason,
  type VerificationOfR,
  verdict,
} from './verdict.ts';
export { healthChanged, nextWakeUp, type WakeUp, type WakeUpInput, waveTimeoutAt } from './wake-up.ts';
export { completeWaves } from './wave-complete.ts';
export { type WaveGateDecision, type WaveGateInput, WaveGateReason, waveHealthGate } from './wave-gate.ts';
