// What bench/shards.ts counts after a replica was killed mid-burst, as pure functions of what it read (so
// a table test pins them down): how each Release ended (a verdict lost on the way shows as a Release not
// Ready or not Healthy, without lastHealthy of its applied render, rolled back or failed, or stuck
// Progressing), the server-side applies kube-apiserver served, and how evenly the replicas shared the work.
import type { PendingEntry, Release } from '../src/api/types.ts';
import { assessedHealthy, conditionTrue } from './release-burst.ts';

/** How one Release ended: the first that holds, in this order. */
export const ENDINGS = [
  'rolledBack',
  'failed',
  'stuckProgressing',
  'notReady',
  'notHealthy',
  'noLastHealthy',
  'ok',
] as const;
export type Ending = (typeof ENDINGS)[number];

export function ending(r: Release): Ending {
  const s = r.status;
  const applied = s?.lastSuccessful?.renderRef;
  const ended = (result: string) =>
    s?.rollout?.state === result || (s?.history ?? []).some((h) => h.result === result);
  if (ended('RolledBack')) return 'rolledBack';
  if (ended('Failed')) return 'failed';
  if (s?.rollout?.state === 'Progressing') return 'stuckProgressing';
  if (!conditionTrue(r, 'Ready')) return 'notReady';
  if (!assessedHealthy(r)) return 'notHealthy';
  if (applied === undefined || s?.lastHealthy?.renderRef !== applied) return 'noLastHealthy';
  return 'ok';
}

/** Releases by how they ended, every ending listed (0 when none), and up to `examples` names of each. */
export function endings(
  releases: readonly Release[],
  examples = 3,
): {
  readonly counts: Readonly<Record<Ending, number>>;
  readonly examples: Readonly<Record<string, string[]>>;
} {
  const counts = Object.fromEntries(ENDINGS.map((e) => [e, 0])) as Record<Ending, number>;
  const named: Record<string, string[]> = {};
  for (const r of releases) {
    const e = ending(r);
    counts[e] += 1;
    if (e === 'ok') continue;
    const list = named[e] ?? [];
    if (list.length < examples) list.push(`${r.metadata.namespace}/${r.metadata.name}`);
    named[e] = list;
  }
  return { counts, examples: named };
}

/**
 * Server-side applies of one resource that kube-apiserver served, from its /metrics text
 * (apiserver_request_total, verb APPLY): real ones (2xx), dry runs (every one is run before the apply:
 * docs/design.md#reconcile-order) and real ones that failed, by status code. Counted by the server, so a replica killed with an apply
 * in flight counts only if the apply happened.
 */
export function apiserverApplies(
  metrics: string,
  resource: string,
): {
  readonly applies: number;
  readonly dryRuns: number;
  readonly failed: Readonly<Record<string, number>>;
} {
  let applies = 0;
  let dryRuns = 0;
  const failed: Record<string, number> = {};
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const label = (n: string) => new RegExp(`[{,]${n}="([^"]*)"`).exec(line)?.[1];
    if (label('verb') !== 'APPLY' || label('resource') !== resource || label('subresource') !== '') continue;
    const n = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (label('dry_run') !== '') dryRuns += n;
    else if (label('code')?.startsWith('2') === true) applies += n;
    else failed[label('code') ?? ''] = (failed[label('code') ?? ''] ?? 0) + n;
  }
  return { applies, dryRuns, failed };
}

/** Pending notes (keys noted before their apply and not yet recorded) of the given kind in inventories. */
export function pendingKeys(
  inventories: readonly { readonly pending?: readonly PendingEntry[] }[],
  kind: string,
) {
  return inventories.reduce((n, inv) => n + (inv.pending ?? []).filter((p) => p.kind === kind).length, 0);
}

/** Each replica's part of a total (0..1, two decimals), and the largest part over the even one. */
export function shares(byReplica: Readonly<Record<string, number>>): {
  readonly parts: Readonly<Record<string, number>>;
  readonly maxOverEven: number;
} {
  const names = Object.keys(byReplica);
  const sum = Object.values(byReplica).reduce((a, b) => a + b, 0);
  if (names.length === 0 || sum === 0) return { parts: {}, maxOverEven: 0 };
  const parts = Object.fromEntries(names.map((n) => [n, +((byReplica[n] ?? 0) / sum).toFixed(2)]));
  const max = Math.max(...names.map((n) => byReplica[n] ?? 0));
  return { parts, maxOverEven: +(max / (sum / names.length)).toFixed(2) };
}
