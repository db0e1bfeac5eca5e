// Pure planning for stageGates and stageSync: what to apply in which order, what to prune or
// forget, what to record, and whether a gate holds. No I/O here.

export { type RenderAppliedInput, renderApplied } from './applied.ts';
export {
  type ConditionFields,
  conditionsFor,
  type HoldReason,
  type OutcomeConditions,
  type ReadyOutcome,
} from './conditions.ts';
export { driftAppeared, selfHealNote } from './drift.ts';
export { DRY_RUN_MEMO_LIMIT, DryRunMemo } from './dry-run-memo.ts';
export { forcedSyncPending } from './force.ts';
export {
  type ClusterWaveGate,
  type ClusterWaveInput,
  clusterWaveGate,
  type GateDecision,
  type GateInput,
  gateDecision,
  type HeldReason,
  type SourceLike,
  sourceIdentity,
  type WavePeer,
} from './gates.ts';
export {
  type AppliedVersions,
  appliedCollector,
  entryKey,
  inventoryEntriesForWave,
  inventoryEntryOf,
  inventoryRemovals,
  versionOf,
} from './inventory.ts';
export {
  crdsKeptNote,
  entryKindRank,
  isCRD,
  type LiveMarks,
  type PruneDecision,
  type PruneInput,
  type PruneOptions,
  type PrunePlan,
  prunePlan,
  pruneSet,
} from './prune.ts';
export { recordWaveStart } from './wave-records.ts';
export { applyWaveOf, groupWaves, servedKind, type Wave } from './waves.ts';
