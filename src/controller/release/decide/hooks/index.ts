// Lifecycle hooks, the controller's pure half: planning of each phase (planHookPhase, planPostSync,
// syncFailHooks, deletionPlan), delete policies, and which hook resources those policies removed. act/hooks carries the decisions out: the edge that
// creates and deletes hook workloads, and the runner inside a reconcile.
// The observer's half (polling the workloads, writing their state) lives in src/observer/hooks.
export {
  type CleanupMoment,
  departedHooks,
  type HookWorkloadRef,
  recordedWorkloads,
  workloadOf,
  workloadsToDelete,
} from './cleanup.ts';
export * from './defs.ts';
export {
  blockedMessage,
  type DeletePhase,
  type DeletionPlanInput,
  type DeletionStep,
  deletionPlan,
} from './deletion.ts';
export {
  forcedAtOf,
  type HookGate,
  hookGate,
  type SyncHookStep,
  type SyncHooksSettledInput,
  syncHooksSettled,
} from './gate.ts';
export {
  armedFor,
  armingCreatedAt,
  finishedState,
  type HookArming,
  type HookPhaseDecision,
  hookInventoryEntry,
  type PlanHookPhaseInput,
  planHookPhase,
} from './plan.ts';
export {
  type PlanPostSyncInput,
  type PostSyncDecision,
  type PostSyncReadiness,
  type PostSyncReadyInput,
  planPostSync,
  postSyncReady,
} from './post-sync.ts';
export {
  type HookOutcomesInput,
  hookOutcomes,
  liveObjects,
  type PhaseOutcome,
  type PhaseOutcomes,
  phaseOutcome,
  spentHookResources,
  spentOnceHealthy,
} from './resources.ts';
export * from './sync-fail.ts';
export * from './workload.ts';
