// Public surface of src/api: constants, types, schemas, the duration parser.
export * from './constants.ts';
export * from './duration.ts';
export { SHORT_DIGITS, shortRevision } from './revision.ts';
export { ClusterSpecSchema, ClusterStatusSchema } from './schema/cluster.ts';
export { LabelSelectorSchema } from './schema/common.ts';
export { HealthRuleSchema, HealthRuleSetSpecSchema } from './schema/healthruleset.ts';
export {
  ENTRY_STATES,
  HOOK_STATES,
  InventoryEntrySchema,
  InventoryHookSchema,
} from './schema/inventory.ts';
export {
  ALERT_EVENTS,
  AlertSpecSchema,
  PROVIDER_TYPES,
  ProviderSpecSchema,
  RECEIVER_TYPES,
  ReceiverSpecSchema,
  SEVERITIES,
} from './schema/notification.ts';
export { RENDER_TYPES, ReleaseSpecSchema, ReleaseStatusSchema, ROLLOUT_STATES } from './schema/release.ts';
export {
  MEMBER_STATES,
  ReleaseSetSpecSchema,
  ReleaseSetStatusSchema,
  TRAIN_STATES,
} from './schema/releaseset.ts';
export type {
  CheckStatus,
  Measurement,
  MeasurementPhase,
  PrometheusCheck,
  VerificationArg,
  VerificationCheck,
  VerificationPhase,
  VerificationSecretKey,
  VerificationSpec,
  VerificationStatus,
  VerificationTemplateRef,
  WebCheck,
} from './schema/verification.ts';
export {
  MEASUREMENT_PHASES,
  MEASUREMENTS_KEPT,
  VERIFICATION_PHASES,
  VerificationSpecSchema,
  VerificationStatusSchema,
} from './schema/verification.ts';
export * from './types.ts';
