// The I/O of spec.failurePolicy.stuckStatefulSetPods Delete (docs/design.md#apply-last-healthy): after
// applyLastHealthy re-applied the last healthy render, read each of its StatefulSets and their Pods in the
// target cluster and delete the Pods stuckPods picks (not Ready, not of the update revision), so the
// StatefulSet controller recreates them from the healthy template instead of waiting for them forever.
// Runs on the rollback path only; a failure here is a note, never a failed rollback.
import { setTimeout as delay } from 'node:timers/promises';
import type { Release } from '../../../api/types.ts';
import { assertNever } from '../../../lib/assert-never.ts';
import { errorMessage } from '../../../lib/errors.ts';
import { nameOf, namespaceOf } from '../../../lib/names.ts';
import type { Obj } from '../../../render/types.ts';
import {
  type LivePod,
  type LiveStatefulSet,
  type StuckPodsDecision,
  stuckPods,
} from '../decide/stuck-pods.ts';
import type { ReleaseDeps } from '../deps.ts';
import type { Target } from './target.ts';

/** At most this many Pods are deleted in one pass, over all StatefulSets of the render. */
export const STUCK_POD_BUDGET = 10;

/** How long a pass waits for the statefulset controller to observe the re-applied template. */
const OBSERVE_WAIT_MS = 10_000;
const OBSERVE_POLL_MS = 250;

type StatefulSet = LiveStatefulSet & {
  readonly spec?: { readonly selector?: { readonly matchLabels?: Readonly<Record<string, string>> } };
};

export type StuckPodsDeps = Pick<ReleaseDeps, 'log' | 'now' | 'signal'>;

/** Whether the Release opted in: off unless spec.failurePolicy.stuckStatefulSetPods is Delete. */
export function deletesStuckPods(release: Release): boolean {
  return release.spec.failurePolicy?.stuckStatefulSetPods === 'Delete';
}

/**
 * Deletes the stuck Pods of the StatefulSets in `objects` (the render just re-applied) when the Release
 * opted in; returns one note per deleted Pod and per StatefulSet it could not check.
 */
export async function deleteStuckPods(
  release: Release,
  objects: readonly Obj[],
  target: Pick<Target, 'client' | 'readClient'>,
  deps: StuckPodsDeps,
): Promise<readonly string[]> {
  if (!deletesStuckPods(release)) return [];
  const sets = objects.filter((o) => o.kind === 'StatefulSet' && o.apiVersion === 'apps/v1');
  const notes: string[] = [];
  const waitUntil = deps.now() + OBSERVE_WAIT_MS;
  let budget = STUCK_POD_BUDGET;
  for (const o of sets) {
    const ns = namespaceOf(o);
    const where = `StatefulSet ${ns}/${nameOf(o)}`;
    try {
      const decision = await decideFor(o, target, budget, waitUntil, deps);
      switch (decision.kind) {
        case 'gone':
        case 'noRevision':
          break;
        case 'notObserved':
          notes.push(
            `${where}: stuck Pods not checked, the statefulset controller has not observed generation ${decision.generation} yet`,
          );
          break;
        case 'delete':
          for (const pod of decision.pods) {
            budget--;
            const deleted = await target.client.delete(
              { apiVersion: 'v1', kind: 'Pod', namespace: ns, name: pod.name },
              { uid: pod.uid },
            );
            if (!deleted) continue;
            const note = `deleted Pod ${ns}/${pod.name} of ${where}: not Ready on revision ${pod.revision}, the update revision is ${decision.updateRevision}`;
            deps.log.info({ pod: `${ns}/${pod.name}`, revision: pod.revision }, note);
            notes.push(note);
          }
          if (decision.deferred > 0)
            notes.push(
              `${where}: ${decision.deferred} more stuck Pods left for a later pass (at most ${STUCK_POD_BUDGET} a pass)`,
            );
          break;
        default:
          return assertNever(decision);
      }
    } catch (err) {
      const note = `${where}: stuck Pods not deleted: ${errorMessage(err)}`;
      deps.log.warn({ err: errorMessage(err) }, note);
      notes.push(note);
    }
  }
  return notes;
}

type Decision = StuckPodsDecision | { readonly kind: 'gone' };

/** Reads the StatefulSet (again while its status is older than its spec, until `waitUntil`) and its Pods. */
async function decideFor(
  o: Obj,
  target: Pick<Target, 'readClient'>,
  budget: number,
  waitUntil: number,
  deps: StuckPodsDeps,
): Promise<Decision> {
  const ref = { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: namespaceOf(o), name: nameOf(o) };
  for (;;) {
    const sts = await target.readClient.get<StatefulSet>(ref);
    if (sts === undefined) return { kind: 'gone' };
    const decision = stuckPods(sts, [], budget);
    if (decision.kind === 'notObserved') {
      if (deps.now() >= waitUntil) return decision;
      await delay(OBSERVE_POLL_MS, undefined, deps.signal === undefined ? {} : { signal: deps.signal });
      continue;
    }
    if (decision.kind === 'noRevision') return decision;
    const selector = selectorOf(sts);
    const pods = await target.readClient.listAll<LivePod>(
      { apiVersion: 'v1', kind: 'Pod', namespace: ref.namespace },
      { ...(selector === undefined ? {} : { labelSelector: selector }), limit: 500 },
    );
    return stuckPods(sts, pods, budget);
  }
}

/** The matchLabels of the StatefulSet's selector as a query (the owner check is what counts). */
function selectorOf(sts: StatefulSet): string | undefined {
  const labels = Object.entries(sts.spec?.selector?.matchLabels ?? {});
  return labels.length === 0 ? undefined : labels.map(([k, v]) => `${k}=${v}`).join(',');
}
