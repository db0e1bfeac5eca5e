// What `convoy fleet status` prints and when `convoy fleet watch` ends, from a ReleaseSet alone: a train
// held (no cluster, a member Stalled, its Cluster not ready) says so with the set's Ready=False. Pure.
import type { ReleaseSet } from '../api/types.ts';
import { dash, paintState, table } from './format.ts';

/** The summary line, the train line and the per-cluster table. */
export function fleetLines(set: ReleaseSet, colour: boolean): string[] {
  const s = set.status;
  const name = `${set.metadata.namespace}/${set.metadata.name}`;
  if (s === undefined) return [`releaseset ${name}: no status yet (is the controller-manager running?)`];
  const t = s.train;
  const lines = [
    `releaseset ${name}  revision ${dash(s.revision)}  good ${dash(s.good?.revision)}  ready ${dash(s.summary?.ready)}`,
    t === undefined
      ? 'train: none'
      : `train ${t.revision}: ${paintState(t.state, colour)}${t.wave === undefined ? '' : ` (wave ${t.wave})`}, started ${t.startedAt}${t.finishedAt === undefined ? '' : `, finished ${t.finishedAt}`}`,
  ];
  const ready = s.conditions?.find((c) => c.type === 'Ready');
  if (t?.state === 'Progressing' && ready?.status === 'False')
    lines.push(`held: ${ready.reason}: ${dash(ready.message)}`);
  if (t?.failedCluster !== undefined)
    lines.push(`failed on ${t.failedCluster}: ${dash(t.reason)} ${dash(t.message)}`);
  if (t?.rolledBack !== undefined && t.rolledBack.length > 0)
    lines.push(`rolled back: ${t.rolledBack.join(', ')}`);
  const rows = (s.clusters ?? []).map((m) => [
    m.cluster,
    String(m.wave),
    dash(m.revision),
    paintState(m.state, colour),
    dash(m.health),
    dash(m.message),
  ]);
  return [...lines, '', ...table([['CLUSTER', 'WAVE', 'REVISION', 'STATE', 'HEALTH', 'MESSAGE'], ...rows])];
}

export type FleetOutcome =
  | { readonly kind: 'running'; readonly line: string }
  | { readonly kind: 'done'; readonly code: 0 | 1; readonly line: string };

/** 0 when the revision of the set's spec reached every cluster, 1 on a stopped or rolled back train. */
export function fleetOutcome(set: ReleaseSet): FleetOutcome {
  const s = set.status;
  const t = s?.train;
  const observed = s?.observedGeneration === set.metadata.generation;
  if (s === undefined || t === undefined || !observed || t.revision !== s.revision)
    return { kind: 'running', line: 'waiting for the controller to start the train' };
  const line = `${t.revision} ${t.state}${t.wave === undefined ? '' : ` wave ${t.wave}`} ${dash(s.summary?.ready)}: ${dash(s.message)}`;
  switch (t.state) {
    case 'Succeeded':
      return {
        kind: 'done',
        code: 0,
        line: `revision ${t.revision} reached all ${s.summary?.total ?? 0} clusters`,
      };
    case 'RolledBack':
      return {
        kind: 'done',
        code: 1,
        line: `fleet rollback: revision ${t.revision} failed on ${dash(t.failedCluster)}; rolled back ${(t.rolledBack ?? []).join(', ') || 'nothing'}`,
      };
    case 'Stopped':
      return { kind: 'done', code: 1, line: `train stopped: ${dash(t.message)}` };
    case 'Progressing':
      return { kind: 'running', line };
  }
}
