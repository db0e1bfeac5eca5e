// Fair share of shards over the live replicas of one process kind, as a pure decision each
// replica takes on its own from the same view (shard Leases + member Leases), so they agree
// without talking: free shards go to the member holding fewest, and a member holding two more
// than another gives one up. Every member ends within one shard of every other (so at most
// ceil(N/M)), and a shard is released only for a member that is short, never left to nobody.
import { assertNever } from '../lib/assert-never.ts';
import { fnv1a32 } from './shard.ts';

/** One shard as this replica read its Lease. */
export type ShardState =
  /** Nobody holds it (never created, released, or expired); freeForMs: how long we have seen it free. */
  | { readonly kind: 'free'; readonly freeForMs: number }
  /** Held live by `holder` (a member or not: a replica without a member Lease still holds it). */
  | { readonly kind: 'held'; readonly holder: string }
  /** Could not be read this round: neither taken nor counted. */
  | { readonly kind: 'unknown' };

export type BalanceInput = {
  readonly me: string;
  /** Identities with a live member Lease; `me` counts whether listed or not. */
  readonly members: readonly string[];
  /** Index = shard number. */
  readonly shards: readonly ShardState[];
  /** A free shard nobody took for this long is taken by anyone (its intended taker is stuck). */
  readonly staleAfterMs: number;
};

export type BalanceDecision = {
  /** Free shards to try to acquire, best first. */
  readonly acquire: readonly number[];
  /** Held shards to give up so a short member can take them. */
  readonly release: readonly number[];
  /** The most shards any member should hold: ceil(shards / members). */
  readonly share: number;
};

/** Rendezvous rank of a shard for a member: members prefer high ranks, so their wishes differ. */
export function rank(shard: number, member: string): number {
  return fnv1a32(`${member}/${shard}`);
}

export function decideBalance(input: BalanceInput): BalanceDecision {
  const members = [...new Set([...input.members, input.me])].sort();
  const holding = new Map<string, number[]>(members.map((m) => [m, []]));
  const free: number[] = [];
  input.shards.forEach((st, shard) => {
    switch (st.kind) {
      case 'free':
        free.push(shard);
        return;
      case 'held':
        holding.get(st.holder)?.push(shard);
        return;
      case 'unknown':
        return;
      default:
        assertNever(st);
    }
  });
  const count = new Map(members.map((m) => [m, holding.get(m)?.length ?? 0]));
  const fewest = () => pick(members, (a, b) => (count.get(a) ?? 0) < (count.get(b) ?? 0));
  const most = () => pick(members, (a, b) => (count.get(a) ?? 0) > (count.get(b) ?? 0));

  // Fill: every replica simulates the same hand-out of free shards, one at a time to whoever
  // holds fewest, and tries only the ones that fall to itself.
  const acquire: number[] = [];
  const pool = [...free];
  while (pool.length > 0) {
    const m = fewest();
    const s = best(pool, m, 'high');
    pool.splice(pool.indexOf(s), 1);
    count.set(m, (count.get(m) ?? 0) + 1);
    if (m === input.me) acquire.push(s);
  }
  // A free shard left for someone else that they did not take in time: take it anyway.
  for (const s of free) {
    const st = input.shards[s];
    if (st?.kind === 'free' && st.freeForMs >= input.staleAfterMs && !acquire.includes(s)) acquire.push(s);
  }

  // Move: while one member holds two more than another, the fullest gives up its worst shard.
  const release: number[] = [];
  for (;;) {
    const donor = most();
    const taker = fewest();
    if ((count.get(donor) ?? 0) - (count.get(taker) ?? 0) < 2) break;
    const own = holding.get(donor) ?? [];
    if (own.length === 0) break; // its surplus is shards it has yet to acquire: nothing to give
    const s = best(own, donor, 'low');
    own.splice(own.indexOf(s), 1);
    count.set(donor, (count.get(donor) ?? 0) - 1);
    count.set(taker, (count.get(taker) ?? 0) + 1);
    if (donor === input.me) release.push(s);
  }
  return { acquire, release, share: Math.ceil(input.shards.length / members.length) };
}

/** The first of the (sorted) members for which `better` holds against all others. */
function pick(members: readonly string[], better: (a: string, b: string) => boolean): string {
  let out = members[0] as string;
  for (const m of members) if (better(m, out)) out = m;
  return out;
}

/** The shard of `from` a member ranks highest (or lowest); ties go to the lower shard number. */
function best(from: readonly number[], member: string, which: 'high' | 'low'): number {
  let out = from[0] as number;
  for (const s of from) {
    const d = rank(s, member) - rank(out, member);
    if ((which === 'high' ? d > 0 : d < 0) || (d === 0 && s < out)) out = s;
  }
  return out;
}
