// What a deletion does about its target: whether a step needs the target cluster at all (a Release that
// never applied anything can be deleted without it), and what happens when the target cannot be reached
// — a Cluster that is missing (also: named in another namespace), not Ready, paused, or forbidding the
// prune. Deletion then either waits with a clear reason or, when nothing could ever reach the objects
// again or a person said so, leaves them (orphans them) and finishes. Never a silent stuck finalizer.
// Pure; deletion.ts does the I/O.
import type { ReadyReason } from '../../../api/types.ts';
import { assertNever } from '../../../lib/assert-never.ts';
import type { DeletionStep } from './hooks/index.ts';

/** Whether carrying out `step` calls the target cluster. */
export function stepNeedsTarget(step: DeletionStep, deletionPolicy: 'Delete' | 'Orphan'): boolean {
  switch (step.kind) {
    case 'armHooks':
      return true;
    case 'waitHooks':
    case 'blocked':
    case 'finalize':
      return step.cleanup.length > 0;
    case 'prune':
      // With Orphan nothing is deleted; only the hook workloads of the cleanup are.
      return deletionPolicy === 'Delete' || step.cleanup.length > 0;
    default:
      return assertNever(step);
  }
}

export interface UnreachableInput {
  /** The Release carries convoy.kumodo.io/deletion-policy: orphan. */
  readonly orphanRequested: boolean;
  /** The Release's namespace is being deleted. */
  readonly namespaceTerminating: boolean;
  /** Why the target could not be used: the Ready reason and message of the failure. */
  readonly failure: { readonly reason: ReadyReason; readonly message: string };
  /** The target's name ("local" or the Cluster's). */
  readonly target: string;
  /** Object entries and hook records still in the inventory. */
  readonly objects: number;
  readonly hookWorkloads: number;
}

export type UnreachableDecision =
  /** Retry with backoff, Ready=False with this reason and message, and a Warning Event. */
  | { readonly kind: 'wait'; readonly reason: ReadyReason; readonly message: string }
  /** Leave everything on the target, drop convoy's records, remove the finalizer; a Warning Event says so. */
  | { readonly kind: 'orphan'; readonly message: string };

export function decideUnreachable(input: UnreachableInput): UnreachableDecision {
  const what = leftBehind(input.objects, input.hookWorkloads);
  const on = input.target === 'local' ? 'this cluster' : `Cluster "${input.target}"`;
  if (input.orphanRequested) {
    return {
      kind: 'orphan',
      message: `deletion left ${what} on ${on} (annotation convoy.kumodo.io/deletion-policy=orphan): ${input.failure.message}`,
    };
  }
  if (input.namespaceTerminating && input.failure.reason === 'ClusterNotFound') {
    // The Cluster (with its kubeconfig Secret) went with the namespace: nothing can ever reach the objects
    // again, and waiting would keep the namespace Terminating forever.
    return {
      kind: 'orphan',
      message: `deletion left ${what} on ${on}: the namespace is being deleted and the Cluster is gone with it`,
    };
  }
  return {
    kind: 'wait',
    reason: input.failure.reason,
    message:
      `deletion waits: ${input.failure.message}; ${what} cannot be cleaned up until it can reach ${on}. ` +
      'To give up and leave them, annotate the Release convoy.kumodo.io/deletion-policy=orphan',
  };
}

function leftBehind(objects: number, hooks: number): string {
  const parts = [plural(objects, 'object')];
  if (hooks > 0) parts.push(plural(hooks, 'hook workload'));
  return parts.join(' and ');
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
