// One error class per failing step of a reconcile, each carrying the Ready reason it sets and
// whether it stalls the Release (a retry cannot fix it without a change to the Release or its
// source). conditionsFor (sync/conditions.ts) turns them into conditions.
import type { ReadyReason } from '../../api/types.ts';
import { errorMessage } from '../../lib/errors.ts';

export abstract class ReleaseError extends Error {
  abstract readonly reason: ReadyReason;
  /** True only when retrying the same inputs must fail the same way. */
  readonly stalled: boolean = false;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * The base of a step's error whose reason and stalling are fixed: the class of each such step is one line,
 * and its `name` (the class name, in logs) is set once here.
 */
function stepError<R extends ReadyReason>(name: string, reason: R, stalled = false) {
  return class extends ReleaseError {
    override name = name;
    readonly reason: R = reason;
    override readonly stalled: boolean = stalled;
  };
}

/**
 * Fetching or resolving the source failed (network, credentials, unknown ref; SourceTimeout when a time
 * limit ended it): retry.
 */
export class SourceFailedError extends ReleaseError {
  override name = 'SourceFailedError';
  readonly reason: 'SourceFailed' | 'SourceTimeout';
  constructor(message: string, options?: { cause?: unknown; reason?: 'SourceFailed' | 'SourceTimeout' }) {
    super(message, options);
    this.reason = options?.reason ?? 'SourceFailed';
  }
}

/** The source's files do not make a valid render: only a new revision or spec can fix it. */
export class RenderFailedError extends stepError('RenderFailedError', 'RenderFailed', true) {}

/** spec.pin names a render the store does not hold: only a spec change can fix it. */
export class PinNotFoundError extends stepError('PinNotFoundError', 'PinNotFound', true) {}

/** The target Cluster is missing or not Ready (ClusterUnavailable): retry. */
export class ClusterUnavailableError extends ReleaseError {
  override name = 'ClusterUnavailableError';
  readonly reason: 'ClusterNotFound' | 'ClusterNotReady';
  constructor(reason: 'ClusterNotFound' | 'ClusterNotReady', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

/**
 * Tenant mode and a Release that names no ServiceAccount, with no --default-service-account: convoy will
 * not write with its own identity (docs/design.md#tenancy-and-impersonation). Only a spec change (or the
 * flag) fixes it.
 */
export class ServiceAccountRequiredError extends stepError(
  'ServiceAccountRequiredError',
  'ServiceAccountRequired',
  true,
) {}

/**
 * The server-side dry run rejected an object. `invalid` (the API said 400 BadRequest or 422
 * Invalid: schema, validation, admission) stalls; anything else — a missing CRD, a webhook
 * that is down, a permission — may pass on a later try.
 */
export class DryRunFailedError extends ReleaseError {
  override name = 'DryRunFailedError';
  readonly reason = 'DryRunFailed';
  override readonly stalled: boolean;
  constructor(message: string, invalid: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.stalled = invalid;
  }

  /** From the HTTP status of the failed dry-run request. */
  static fromStatus(message: string, httpStatus: number | undefined, cause?: unknown): DryRunFailedError {
    return new DryRunFailedError(message, httpStatus === 400 || httpStatus === 422, { cause });
  }
}

/** Writing the render to the render store (or lastAttempted) failed. */
export class PersistFailedError extends stepError('PersistFailedError', 'PersistFailed') {}

export class ApplyFailedError extends stepError('ApplyFailedError', 'ApplyFailed') {}

export class PruneFailedError extends stepError('PruneFailedError', 'PruneFailed') {}

/** A PreSync/PostSync hook failed, or its workload could not be created. */
export class HookFailedError extends stepError('HookFailedError', 'HookFailed') {}

/** A thrown value as a step's error: a ReleaseError as it is, anything else a SourceFailedError saying so. */
export function asReleaseError(err: unknown): ReleaseError {
  if (err instanceof ReleaseError) return err;
  return new SourceFailedError(`unexpected failure: ${errorMessage(err)}`, { cause: err });
}
