// The controller harness (docs/design.md#processes): the public surface both
// convoy processes build on.
export { forEachBounded } from './bounded.ts';
export { byNamespace, Cache, type CacheReader, keyOf, splitKey } from './cache.ts';
export { type Clock, FakeClock, realClock } from './clock.ts';
export {
  Controller,
  type ControllerSpec,
  DEFAULT_RECONCILE_TIMEOUT_MS,
  type ReconcileContext,
  type SecondaryWatch,
} from './controller.ts';
export { isSuperseded, ReconcileAbortedError } from './deadline.ts';
export { leaseLive, readLease, ShardElector, type ShardGate } from './elector.ts';
export * from './filters.ts';
export { Harness, type HarnessOptions, type ShardOptions } from './harness.ts';
export {
  type EventHandlers,
  Informer,
  type InformerHooks,
  type InformerOptions,
  type Relist,
} from './informer.ts';
export { exponentialBackoff, jittered, type Random } from './jitter.ts';
export {
  decideLease,
  isLeaseLive,
  type Lease,
  type LeaseSpec,
  leaseRevived,
  microTime,
} from './lease.ts';
export { forKey, type Logger, newLogger } from './log.ts';
export { type HarnessMetrics, newMetrics } from './metrics.ts';
export { OwnWrites } from './own-writes.ts';
export { FINISH_SHARE, type Priority, type QueueOptions, ROUTINE_SHARE, WorkQueue } from './queue.ts';
export { controllerLeaseName, fnv1a32, observerLeaseName, type ShardSubject, shardOf } from './shard.ts';
export { ApiError, isGone, Transport, type WatchEvent } from './transport.ts';
export { type Reconcile, type ReconcileResult, settle, WorkerPool } from './workers.ts';
