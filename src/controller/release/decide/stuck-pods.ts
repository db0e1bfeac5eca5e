// Which Pods of a StatefulSet a rollback may delete (docs/design.md#apply-last-healthy). With the default
// OrderedReady policy the StatefulSet controller never replaces a Pod of the bad revision that never got
// Ready once the template is rolled back: it waits for that Pod forever. With
// spec.failurePolicy.stuckStatefulSetPods Delete, a rollback deletes exactly those Pods so the controller
// recreates them from the healthy template. Pure: the reads and deletes are act/stuck-pods.ts.

/** The fields of a live StatefulSet this decision reads. */
export interface LiveStatefulSet {
  readonly metadata: { readonly uid?: string; readonly generation?: number };
  readonly status?: { readonly observedGeneration?: number; readonly updateRevision?: string };
}

/** The fields of a live Pod this decision reads. */
export interface LivePod {
  readonly metadata: {
    readonly name?: string;
    readonly uid?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly deletionTimestamp?: string;
    readonly ownerReferences?: readonly { readonly uid?: string; readonly controller?: boolean }[];
  };
  readonly status?: { readonly conditions?: readonly { readonly type?: string; readonly status?: string }[] };
}

/** The label the StatefulSet controller puts on each Pod: the ControllerRevision it was made from. */
export const REVISION_LABEL = 'controller-revision-hash';

/** A Pod to delete, with the uid that makes the delete a no-op on a Pod recreated under the same name. */
export interface StuckPod {
  readonly name: string;
  readonly uid: string;
  /** Its controller-revision-hash, for the note. */
  readonly revision: string;
}

export type StuckPodsDecision =
  /** The controller has not seen the re-applied template yet: status.updateRevision may be the bad one. */
  | { readonly kind: 'notObserved'; readonly generation: number; readonly observedGeneration: number }
  /** No status.updateRevision (or no uid): nothing can be told apart safely. */
  | { readonly kind: 'noRevision' }
  /** Delete `pods` (at most the budget); `deferred` more matched and wait for a later pass. */
  | {
      readonly kind: 'delete';
      readonly updateRevision: string;
      readonly pods: readonly StuckPod[];
      readonly deferred: number;
    };

function isReady(pod: LivePod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

function controlledBy(pod: LivePod, uid: string): boolean {
  return (pod.metadata.ownerReferences ?? []).some((o) => o.controller === true && o.uid === uid);
}

/**
 * The Pods of `sts` to delete: controlled by it, of a revision other than its status.updateRevision,
 * not Ready and not already being deleted; at most `budget`, by name so a pass is repeatable. A Pod
 * without the revision label is left alone (it cannot be told apart), as is every Ready Pod.
 */
export function stuckPods(sts: LiveStatefulSet, pods: readonly LivePod[], budget: number): StuckPodsDecision {
  const uid = sts.metadata.uid;
  const updateRevision = sts.status?.updateRevision;
  const generation = sts.metadata.generation ?? 0;
  const observedGeneration = sts.status?.observedGeneration ?? 0;
  if (observedGeneration < generation) return { kind: 'notObserved', generation, observedGeneration };
  if (uid === undefined || uid === '' || updateRevision === undefined || updateRevision === '')
    return { kind: 'noRevision' };
  const matched: StuckPod[] = [];
  for (const pod of pods) {
    const name = pod.metadata.name;
    const podUid = pod.metadata.uid;
    const revision = pod.metadata.labels?.[REVISION_LABEL];
    if (name === undefined || podUid === undefined || revision === undefined) continue;
    if (!controlledBy(pod, uid) || revision === updateRevision) continue;
    if (pod.metadata.deletionTimestamp !== undefined || isReady(pod)) continue;
    matched.push({ name, uid: podUid, revision });
  }
  matched.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const take = Math.max(0, budget);
  return {
    kind: 'delete',
    updateRevision,
    pods: matched.slice(0, take),
    deferred: Math.max(0, matched.length - take),
  };
}
