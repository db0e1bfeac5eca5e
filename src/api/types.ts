// TypeScript types of convoy's resources: Static<> of the schemas (so they cannot drift from the CRDs)
// plus the object envelopes, condition types and the reasons each writer may set.
import type { Static } from 'typebox';
import type { API_VERSION } from './constants.ts';
import type { ClusterSpecSchema, ClusterStatusSchema } from './schema/cluster.ts';
import type { Condition, ObjectMeta } from './schema/common.ts';
import type { HealthRuleSetSpec } from './schema/healthruleset.ts';
import type { InventoryEntrySchema, InventoryHookSchema, PendingEntrySchema } from './schema/inventory.ts';
import type {
  AlertSpec,
  AlertStatus,
  ProviderSpec,
  ProviderStatus,
  ReceiverSpec,
  ReceiverStatus,
} from './schema/notification.ts';
import { type ReleaseSpecSchema, type ReleaseStatusSchema, ROLLOUT_STATES } from './schema/release.ts';
import type { ReleaseSetSpec, ReleaseSetStatus } from './schema/releaseset.ts';
import type { VerificationStatus } from './schema/verification.ts';

export type {
  Condition,
  ConditionStatus,
  KubeObject,
  LabelSelector,
  ObjectHeader,
  ObjectMeta,
} from './schema/common.ts';
export type { EntryState, HookState } from './schema/inventory.ts';
export type { ReleaseSetSpec, ReleaseSetStatus } from './schema/releaseset.ts';

export type ReleaseSpec = Static<typeof ReleaseSpecSchema>;
export type ReleaseStatus = Static<typeof ReleaseStatusSchema>;
export type InventoryEntry = Static<typeof InventoryEntrySchema>;
export type InventoryHook = Static<typeof InventoryHookSchema>;
export type PendingEntry = Static<typeof PendingEntrySchema>;
export type ClusterSpec = Static<typeof ClusterSpecSchema>;
export type ClusterStatus = Static<typeof ClusterStatusSchema>;
export type { HealthRule, HealthRuleSetSpec } from './schema/healthruleset.ts';

export type RolloutStatus = NonNullable<ReleaseStatus['rollout']>;
export type RolloutState = RolloutStatus['state'];
export type LastAttempted = NonNullable<ReleaseStatus['lastAttempted']>;
export type RenderRecord = NonNullable<ReleaseStatus['lastSuccessful']>;
export type WaveStatus = NonNullable<ReleaseStatus['waves']>[number];
export type HistoryEntry = NonNullable<ReleaseStatus['history']>[number];
export type AttemptTrigger = NonNullable<HistoryEntry['trigger']>;
export type TriggerKind = AttemptTrigger['kind'];
export type HealthSummary = NonNullable<ReleaseStatus['healthSummary']>;
export type DriftSummary = NonNullable<ReleaseStatus['driftSummary']>;
export type WaveSpec = NonNullable<ReleaseSpec['waves']>[number];
export type SyncPolicy = NonNullable<ReleaseSpec['syncPolicy']>;
export type HealthAssessment = NonNullable<ReleaseSpec['healthAssessment']>;
export type FailurePolicy = NonNullable<ReleaseSpec['failurePolicy']>;
export type Source = ReleaseSpec['source'];

interface Envelope<K extends string> {
  apiVersion: typeof API_VERSION;
  kind: K;
  metadata: ObjectMeta;
}

export interface Release extends Envelope<'Release'> {
  spec: ReleaseSpec;
  status?: ReleaseStatus;
}

/** Top-level `entries` and `hooks`, no spec/status (docs/design.md#field-ownership). */
export interface ReleaseInventory extends Envelope<'ReleaseInventory'> {
  entries?: InventoryEntry[];
  /** Keys of a wave being applied, not yet recorded (convoy-controller only). */
  pending?: PendingEntry[];
  hooks?: InventoryHook[];
  /** What the observer measured for a render's verification (convoy-verification only; part 0). */
  verification?: VerificationStatus;
}

export interface Cluster extends Envelope<'Cluster'> {
  spec: ClusterSpec;
  status?: ClusterStatus;
}

export interface HealthRuleSet extends Envelope<'HealthRuleSet'> {
  spec: HealthRuleSetSpec;
}

export interface GlobalHealthRuleSet extends Envelope<'GlobalHealthRuleSet'> {
  spec: HealthRuleSetSpec;
}

export interface Provider extends Envelope<'Provider'> {
  spec: ProviderSpec;
  status?: ProviderStatus;
}

export interface Alert extends Envelope<'Alert'> {
  spec: AlertSpec;
  status?: AlertStatus;
}

export interface Receiver extends Envelope<'Receiver'> {
  spec: ReceiverSpec;
  status?: ReceiverStatus;
}

export interface ReleaseSet extends Envelope<'ReleaseSet'> {
  spec: ReleaseSetSpec;
  status?: ReleaseSetStatus;
}
export type FleetMemberStatus = NonNullable<ReleaseSetStatus['clusters']>[number];
export type FleetTrain = NonNullable<ReleaseSetStatus['train']>;
export type FleetMemberState = FleetMemberStatus['state'];

export type {
  AlertEvent,
  AlertSpec,
  AlertStatus,
  NotifiedEntry,
  ProviderSpec,
  ProviderStatus,
  ProviderType,
  ReceiverSpec,
  ReceiverStatus,
  ReceiverType,
  Severity,
} from './schema/notification.ts';

export type ConvoyObject =
  | Release
  | ReleaseInventory
  | Cluster
  | HealthRuleSet
  | GlobalHealthRuleSet
  | Provider
  | Alert
  | Receiver
  | ReleaseSet;

/** The keys of an inventory entry (its list-map keys). */
export type InventoryKey = Pick<InventoryEntry, 'group' | 'kind' | 'namespace' | 'name'>;

// Condition types and reasons. The CRD accepts any CamelCase reason (forward compatible); these unions
// are what convoy itself writes, so a typo is a type error.

export const RELEASE_CONDITION_TYPES = [
  'Ready',
  'Healthy',
  'RolloutSucceeded',
  'Drifted',
  'Stalled',
] as const;
export type ReleaseConditionType = (typeof RELEASE_CONDITION_TYPES)[number];

export const READY_REASONS = [
  'Synced',
  'Progressing',
  'SourceFailed',
  'SourceTimeout',
  'RenderFailed',
  'PinNotFound',
  'ClusterNotFound',
  'ClusterNotReady',
  'ClusterPaused',
  'ServiceAccountRequired',
  'Suspended',
  'WaitingForApproval',
  'WaitingForClusterWave',
  'DryRunFailed',
  'PersistFailed',
  'ApplyFailed',
  'HookFailed',
  'WaitingForHook',
  'WaitingForWaveHealth',
  'WaveTimeout',
  'PruneFailed',
  'RolledBack',
  'Deleting',
] as const;
export type ReadyReason = (typeof READY_REASONS)[number];

/** The Healthy condition's reasons (docs/design.md#healthy-condition). */
export const HEALTHY_REASONS = [
  'NotConfigured',
  'Unknown',
  'Pending',
  'Degraded',
  'Progressing',
  'Healthy',
] as const;
export type HealthyReason = (typeof HEALTHY_REASONS)[number];

/** Follows status.rollout.state. */
export const ROLLOUT_SUCCEEDED_REASONS = ROLLOUT_STATES;
export type RolloutSucceededReason = (typeof ROLLOUT_SUCCEEDED_REASONS)[number];

export const DRIFTED_REASONS = ['InSync', 'Drifted', 'NotConfigured', 'DriftCheckFailed'] as const;
export type DriftedReason = (typeof DRIFTED_REASONS)[number];

export const STALLED_REASONS = ['InvalidSpec', 'BackoffLimitReached', 'NotStalled'] as const;
export type StalledReason = (typeof STALLED_REASONS)[number];

export const CLUSTER_READY_REASONS = [
  'Reachable',
  'Unreachable',
  'SecretNotFound',
  'InvalidKubeconfig',
  'Paused',
] as const;
export type ClusterReadyReason = (typeof CLUSTER_READY_REASONS)[number];

interface TypedCondition<T extends string, R extends string> extends Condition {
  type: T;
  reason: R;
}

/** A Release condition with its reason typed by condition type. */
export type ReleaseCondition =
  | TypedCondition<'Ready', ReadyReason>
  | TypedCondition<'Healthy', HealthyReason>
  | TypedCondition<'RolloutSucceeded', RolloutSucceededReason>
  | TypedCondition<'Drifted', DriftedReason>
  | TypedCondition<'Stalled', StalledReason>;

export type ClusterCondition = TypedCondition<'Ready', ClusterReadyReason>;
