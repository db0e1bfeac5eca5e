// Lifecycle hooks carried out (docs/design.md#hooks): the runner inside a reconcile and the edge that creates
// and deletes hook workloads in the target cluster. The decisions are in decide/hooks.

export { removeSpentResources } from './resources.ts';
export {
  armHooks,
  cleanUp,
  hookWorkloadOptions,
  liveObjectsOf,
  postSyncAfterApply,
  postSyncStep,
  preSyncStep,
  pruneDepartedHooks,
  type SyncHookInput,
  syncFailStep,
} from './runner.ts';
export {
  type CreatedHook,
  createHookWorkload,
  deleteHookWorkload,
  deleteHookWorkloads,
  type HookWorkloadOptions,
} from './workloads.ts';
