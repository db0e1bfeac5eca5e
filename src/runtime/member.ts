// Membership of the shard balance: each replica of a process kind announces itself with a
// Lease of its own, labelled with its group so one LIST finds them all. A member is live while
// its Lease is renewed within its duration; Leases of members gone for long are garbage.
import { createHash } from 'node:crypto';
import { isLeaseLive, type Lease } from './lease.ts';

/** Label on member Leases; its value is the group (e.g. convoy-controller). */
export const MEMBER_LABEL = 'convoy.kumodo.io/shard-member';

/** Identities are pod names (long, any charset a flag allows): a hash keeps the name valid and short. */
export function memberLeaseName(group: string, identity: string): string {
  return `${group}-member-${createHash('sha256').update(identity).digest('hex').slice(0, 16)}`;
}

export function memberSelector(group: string): string {
  return `${MEMBER_LABEL}=${group}`;
}

/** Sorted identities holding a live member Lease of the group. */
export function liveMembers(leases: readonly Lease[], group: string, nowMs: number): string[] {
  const out = new Set<string>();
  for (const l of leases) {
    const id = l.spec?.holderIdentity;
    if (l.metadata.labels?.[MEMBER_LABEL] === group && id && isLeaseLive(l, nowMs)) out.add(id);
  }
  return [...out].sort();
}

/** Member Leases not renewed for `afterMs` past their expiry: left by replicas that are gone. */
export function staleMembers(
  leases: readonly Lease[],
  group: string,
  nowMs: number,
  afterMs: number,
): Lease[] {
  return leases.filter((l) => {
    if (l.metadata.labels?.[MEMBER_LABEL] !== group) return false;
    const renewed = Date.parse(l.spec?.renewTime ?? '');
    if (Number.isNaN(renewed)) return false;
    return renewed + (l.spec?.leaseDurationSeconds ?? 0) * 1000 + afterMs <= nowMs;
  });
}
