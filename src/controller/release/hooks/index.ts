// Lifecycle hooks, the controller's half: pure planning of each phase (planHookPhase, planPostSync,
// syncFailHooks, deletionPlan), delete policies, the edge that creates and deletes hook workloads, and
// the runner that carries out each phase's decision inside a reconcile.
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
export { type HookGate, hookGate, type SyncHooksSettledInput, syncHooksSettled } from './gate.ts';
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
  armHooks,
  cleanUp,
  forcedAtOf,
  hookWorkloadOptions,
  postSyncAfterApply,
  postSyncStep,
  preSyncStep,
  pruneDepartedHooks,
  type SyncHookInput,
  type SyncHookStep,
  syncFailStep,
} from './runner.ts';
export * from './sync-fail.ts';
export * from './workload.ts';
export {
  type CreatedHook,
  createHookWorkload,
  deleteHookWorkload,
  deleteHookWorkloads,
  type HookWorkloadOptions,
} from './workloads.ts';
