// Public surface of the health loop: the controller, its entry points for other components and tests.
export { AssessError, type Assessment, assess } from './assess.ts';
export { HealthController, type HealthControllerOptions } from './controller.ts';
export { installDefaultRules, installRuleLibrary } from './default-rules.ts';
export {
  describeSyncVia,
  requestSync,
  type SyncOutcome,
  SyncRequestError,
  type SyncVia,
  syncPath,
} from './sync-request.ts';
