// `convoy events NAME`: which Kubernetes Events belong to a Release — its own, those of the objects its
// inventory names, and those of its hook workloads and their pods — oldest first, as `kubectl events`
// prints them. Pure.
import type { InventoryEntry, InventoryHook } from '../api/types.ts';
import { type KubeEvent, lastSeen } from '../kube/events.ts';
import { age, dash, paint, table } from './format.ts';

export { type KubeEvent, lastSeen };

export interface Owned {
  readonly release: { readonly namespace: string; readonly name: string };
  readonly entries: readonly InventoryEntry[];
  readonly hooks: readonly InventoryHook[];
}

const groupOf = (apiVersion: string | undefined) => {
  const v = apiVersion ?? '';
  return v.includes('/') ? v.slice(0, v.indexOf('/')) : '';
};

/** Whether an Event is about the Release, one of its objects, or a hook workload (or a pod of one). */
export function belongs(e: KubeEvent, o: Owned): boolean {
  const io = e.involvedObject ?? {};
  const ns = io.namespace ?? e.metadata?.namespace ?? '';
  const name = io.name ?? '';
  if (io.kind === 'Release' && ns === o.release.namespace && name === o.release.name) return true;
  if (
    o.entries.some(
      (x) =>
        x.kind === io.kind && x.name === name && x.namespace === ns && x.group === groupOf(io.apiVersion),
    )
  ) {
    return true;
  }
  return o.hooks.some((h) => {
    if (h.workloadName === undefined || (h.namespace !== undefined && h.namespace !== ns)) return false;
    if (io.kind === h.kind && name === h.workloadName) return true;
    // The pods of a hook Job are named after it: <job>-<5 random characters>.
    return h.kind === 'Job' && io.kind === 'Pod' && name.startsWith(`${h.workloadName}-`);
  });
}

export function eventLines(events: readonly KubeEvent[], now: Date, colour: boolean): string[] {
  const sorted = [...events].sort((a, b) => lastSeen(a).localeCompare(lastSeen(b)));
  return table([
    ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'],
    ...sorted.map((e) => {
      const io = e.involvedObject ?? {};
      const n = e.series?.count ?? e.count ?? 1;
      return [
        `${age(lastSeen(e), now)}${n > 1 ? ` (x${n})` : ''}`,
        e.type === 'Warning' ? paint('yellow', 'Warning', colour) : dash(e.type),
        dash(e.reason),
        `${dash(io.kind)}/${dash(io.name)}`,
        (e.message ?? '').replace(/\s*\n\s*/g, ' ').trim(),
      ];
    }),
  ]);
}
