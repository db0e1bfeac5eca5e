// Whether convoy's two processes run, read from their shard Leases (docs/design.md#sharding): a process
// with no live Lease syncs, assesses and rolls back nothing, while the pages would still look live and
// healthy. The UI shows a banner for each process that is down, and since when. A Lease lapses without
// any watch event, so the answer also says when it next changes by itself. Pure.
import { isLeaseLive, type Lease } from '../runtime/lease.ts';

/** The processes' default --lease-namespace. */
export const DEFAULT_LEASE_NAMESPACE = 'convoy-system';

export type ConvoyProcess = 'convoy-controller-manager' | 'convoy-observer';

const LEASE_OF: Readonly<Record<ConvoyProcess, RegExp>> = {
  'convoy-controller-manager': /^convoy-controller-shard-\d+$/,
  'convoy-observer': /^convoy-observer-shard-\d+$/,
};

/** What a reader loses while the process is down. */
const CONSEQUENCE: Readonly<Record<ConvoyProcess, string>> = {
  'convoy-controller-manager': 'nothing syncs or rolls back',
  'convoy-observer': 'no health is assessed, so rollouts wait and nothing rolls back',
};

export interface ProcessDown {
  readonly process: ConvoyProcess;
  /** The last renewal of its newest Lease: when it was last seen running. Absent: it never ran here. */
  readonly since?: string;
  /** e.g. "nothing syncs or rolls back" */
  readonly consequence: string;
  /** The Leases looked for, for the reader who wants to check (`convoy-controller-shard-<i>`). */
  readonly leases: string;
}

export type Liveness =
  /** The Leases could not be read yet (the first list has not landed). */
  | { readonly kind: 'unknown' }
  /** The Leases cannot be watched (no permission, say): whether convoy runs is not known. */
  | { readonly kind: 'unreadable'; readonly message: string }
  | { readonly kind: 'known'; readonly down: readonly ProcessDown[] };

export interface LivenessAt {
  readonly liveness: Liveness;
  /** When a live Lease lapses unless renewed first: the time to look again (ms since the epoch). */
  readonly recheckAt?: number;
}

const renewedAt = (l: Lease): number => Date.parse(l.spec?.renewTime ?? '');

export function liveness(leases: readonly Lease[] | undefined, namespace: string, nowMs: number): LivenessAt {
  if (leases === undefined) return { liveness: { kind: 'unknown' } };
  const down: ProcessDown[] = [];
  let recheckAt: number | undefined;
  for (const process of Object.keys(LEASE_OF) as ConvoyProcess[]) {
    const mine = leases.filter((l) => LEASE_OF[process].test(l.metadata.name));
    const live = mine.filter((l) => isLeaseLive(l, nowMs));
    for (const l of live) {
      const lapses = renewedAt(l) + (l.spec?.leaseDurationSeconds ?? 0) * 1000;
      recheckAt = recheckAt === undefined ? lapses : Math.min(recheckAt, lapses);
    }
    if (live.length > 0) continue;
    const newest = mine
      .filter((l) => !Number.isNaN(renewedAt(l)))
      .sort((a, b) => renewedAt(b) - renewedAt(a))[0];
    down.push({
      process,
      ...(newest === undefined ? {} : { since: new Date(renewedAt(newest)).toISOString() }),
      consequence: CONSEQUENCE[process],
      leases: `${process === 'convoy-observer' ? 'convoy-observer' : 'convoy-controller'}-shard-<i> in namespace ${namespace}`,
    });
  }
  return { liveness: { kind: 'known', down }, ...(recheckAt === undefined ? {} : { recheckAt }) };
}
