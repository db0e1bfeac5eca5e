// Kubernetes Events (core/v1) about a Release: one per distinct (type, reason, message) in a reconcile,
// and only for what changed (a new Ready state, a sync's notes), so a steady reconcile emits none.
import type { Condition, Release } from '../../api/types.ts';
import type { KubeClient } from '../../kube/client.ts';
import type { ReleaseWarning } from './warnings.ts';

export interface ReleaseEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/** Events for a reconcile: the Ready condition when it changed, and the sync's notes. Pure. */
export function eventsFor(
  prior: readonly Condition[] | undefined,
  next: readonly Condition[] | undefined,
  notes: readonly string[],
): ReleaseEvent[] {
  const out: ReleaseEvent[] = [];
  const before = prior?.find((c) => c.type === 'Ready');
  const after = next?.find((c) => c.type === 'Ready');
  if (
    after !== undefined &&
    (before?.status !== after.status || before.reason !== after.reason || before.message !== after.message)
  ) {
    out.push({
      type: after.status === 'False' ? 'Warning' : 'Normal',
      reason: after.reason,
      message: after.message,
    });
  }
  for (const n of notes) out.push({ type: 'Normal', reason: 'Sync', message: n });
  const seen = new Set<string>();
  return out.filter((e) => {
    const k = `${e.type}\0${e.reason}\0${e.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Warning Events for the warnings the prior status.message did not carry yet (one Event each). Pure. */
export function newWarnings(
  priorMessage: string | undefined,
  warnings: readonly ReleaseWarning[],
): ReleaseEvent[] {
  return warnings
    .filter((w) => !(priorMessage ?? '').includes(w.message))
    .map((w) => ({ type: 'Warning', reason: w.reason, message: w.message }));
}

export async function emitEvents(
  client: KubeClient,
  release: Release,
  events: readonly ReleaseEvent[],
  now: number,
) {
  const ts = new Date(now).toISOString();
  for (const e of events) {
    await client.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { generateName: `${release.metadata.name}.`, namespace: release.metadata.namespace },
      involvedObject: {
        apiVersion: release.apiVersion,
        kind: release.kind,
        name: release.metadata.name,
        namespace: release.metadata.namespace,
        uid: release.metadata.uid,
        resourceVersion: release.metadata.resourceVersion,
      },
      type: e.type,
      reason: e.reason,
      message: e.message.slice(0, 1024),
      source: { component: 'convoy-controller' },
      reportingComponent: 'convoy-controller',
      reportingInstance: 'convoy-controller-manager',
      firstTimestamp: ts,
      lastTimestamp: ts,
      count: 1,
    } as never);
  }
}
