// Leader election per shard over Lease objects, with the shards spread over the replicas.
// Each replica runs one elector for its process kind (controller or observer); a shard is
// worked by the replica holding its Lease. Each replica also holds a member Lease of its own,
// so every replica sees the same set of live members and takes its fair share (balance.ts):
// it picks up free shards that fall to it and releases a shard only for a member short of its
// share. Writes carry the resourceVersion that was read, so two candidates that both saw an
// expired lease cannot both win (one gets 409 Conflict). A holder that cannot renew for
// renewDeadline stops working the shard before its lease can expire for others
// (renewDeadline < duration). stop() releases held leases (the member Lease first) so a
// graceful shutdown hands shards over at once; a crash hands them over after the duration.
// Held shard Leases are renewed on their own cadence (every retryMs, one PUT each), apart from the
// round that reads members and Leases to acquire or balance: behind the round's four sequential requests
// a renewal on a slow API came later than renewDeadline, and the holder stopped working its own shard
// (and an observer looked not live to the controller) every round although nobody else wanted it.
// The member Lease is renewed with them, with the same renewTime, so it never outlives them: while a
// crashed replica's member Lease was live the others still counted it and left it its freed shards. A
// round comes just after the soonest other holder's Lease runs out, so a crashed replica's shards are
// taken within about the Lease duration of its last renewal, not up to a cadence later.
import type { Logger } from 'pino';
import { isConflict } from '../kube/errors.ts';
import { type BalanceDecision, decideBalance, type ShardState } from './balance.ts';
import { type Clock, realClock, type TimerHandle } from './clock.ts';
import {
  decideLease,
  foreignExpiry,
  isLeaseLive,
  type Lease,
  type LeaseSpec,
  nextRoundDelay,
  releasedSpec,
} from './lease.ts';
import { leasePath, readLease } from './lease-api.ts';
import { Membership } from './membership.ts';
import { fnv1a32 } from './shard.ts';
import type { Transport } from './transport.ts';

/** Whether this replica owns a shard now. The shard gate (docs/design.md#sharding). */
export interface ShardGate {
  owns(shard: number): boolean;
}

export type ElectorOptions = {
  readonly transport: Transport;
  readonly namespace: string;
  readonly leaseName: (shard: number) => string;
  readonly identity: string;
  readonly shards: number;
  /**
   * The replicas that share these shards (a label value, and the prefix of member Lease names);
   * default: the name of shard 0's Lease without its "-shard-0".
   */
  readonly memberGroup?: string;
  readonly leaseDurationSeconds?: number;
  /** How often to try to acquire or renew; default a third of the duration. */
  readonly retryMs?: number;
  /** Stop working a shard when it was last renewed longer ago than this; default 2/3 of the duration. */
  readonly renewDeadlineMs?: number;
  /** Delete member Leases that expired this long ago (replicas gone for good); default 10 minutes. */
  readonly memberGcAfterMs?: number;
  readonly clock?: Clock;
  readonly log?: Logger;
  readonly onGained?: (shard: number) => void;
  readonly onLost?: (shard: number) => void;
};

type Held = { validUntil: number; lease: Lease };
type Read = PromiseSettledResult<Lease | undefined>;

export { leasePath, readLease };

export class ShardElector implements ShardGate {
  readonly #o: ElectorOptions;
  readonly #clock: Clock;
  readonly #duration: number;
  readonly #retryMs: number;
  readonly #renewDeadlineMs: number;
  readonly #membership: Membership;
  readonly #held = new Map<number, Held>();
  /** When this replica first saw each shard free (a free shard nobody takes is taken by anyone). */
  readonly #freeSince = new Map<number, number>();
  #timer: TimerHandle | undefined;
  #running: Promise<void> | undefined;
  #renewTimer: TimerHandle | undefined;
  #renewing: Promise<void> | undefined;
  /** Our member Lease was written once (by the first round); the renewals keep it from then on. */
  #joined = false;
  /** The wait before the next round, set by the last one (nextRoundDelay). */
  #nextRoundMs: number | undefined;
  #stopped = false;

  constructor(o: ElectorOptions) {
    this.#o = o;
    this.#clock = o.clock ?? realClock;
    this.#duration = o.leaseDurationSeconds ?? 15;
    this.#retryMs = o.retryMs ?? (this.#duration * 1000) / 3;
    this.#renewDeadlineMs = o.renewDeadlineMs ?? (this.#duration * 2000) / 3;
    if (this.#renewDeadlineMs >= this.#duration * 1000) {
      throw new Error('renewDeadlineMs must be shorter than the lease duration');
    }
    this.#membership = new Membership({
      transport: o.transport,
      namespace: o.namespace,
      group: o.memberGroup ?? o.leaseName(0).replace(/-shard-0$/, ''),
      identity: o.identity,
      durationSeconds: this.#duration,
      gcAfterMs: o.memberGcAfterMs ?? 600_000,
      ...(o.log ? { log: o.log } : {}),
    });
  }

  owns(shard: number): boolean {
    const h = this.#held.get(shard);
    return h !== undefined && h.validUntil > this.#clock.now();
  }

  held(): number[] {
    return [...this.#held.keys()].filter((s) => this.owns(s)).sort((a, b) => a - b);
  }

  start(): void {
    if (this.#running !== undefined || this.#stopped) return;
    this.#running = this.#round();
    this.#scheduleRenewals(this.#retryMs);
  }

  /** Stops competing; with release, gives up held leases so another replica takes them at once. */
  async stop(release = true): Promise<void> {
    this.#stopped = true;
    if (this.#timer) this.#clock.clearTimeout(this.#timer);
    if (this.#renewTimer) this.#clock.clearTimeout(this.#renewTimer);
    await this.#running;
    await this.#renewing;
    const held = [...this.#held.keys()];
    this.#held.clear();
    for (const shard of held) this.#o.onLost?.(shard);
    if (!release) return;
    // Membership first: a replica that still saw us as a member would leave our shards to us.
    await this.#membership.release(this.#clock.now());
    for (const shard of held) await this.#release(shard);
  }

  /** Frees our hold of a shard's lease, re-reading it so a stale resourceVersion cannot make it fail. */
  async #release(shard: number): Promise<void> {
    const name = this.#o.leaseName(shard);
    try {
      const current = await readLease(this.#o.transport, this.#o.namespace, name);
      if (current?.spec?.holderIdentity !== this.#o.identity) return;
      await this.#putReleased(current);
      this.#o.log?.info({ shard, lease: name }, 'released shard lease');
    } catch (e) {
      this.#o.log?.warn({ shard, lease: name, err: String(e) }, 'could not release lease');
    }
  }

  async #putReleased(current: Lease): Promise<void> {
    await this.#o.transport.request('PUT', leasePath(this.#o.namespace, current.metadata.name), {
      ...current,
      spec: releasedSpec(current.spec ?? {}, this.#clock.now()),
    });
  }

  async #round(): Promise<void> {
    try {
      await this.#tick();
    } catch (e) {
      this.#o.log?.warn({ err: String(e) }, 'elector round failed');
    }
    if (this.#stopped) return;
    this.#timer = this.#clock.setTimeout(() => {
      this.#running = this.#round();
    }, this.#nextRoundMs ?? this.#retryMs);
  }

  #scheduleRenewals(afterMs: number): void {
    if (this.#stopped) return;
    this.#renewTimer = this.#clock.setTimeout(() => {
      const started = this.#clock.now();
      this.#renewing = this.#renewHeld().then(() =>
        this.#scheduleRenewals(Math.max(0, this.#retryMs - (this.#clock.now() - started))),
      );
    }, afterMs);
  }

  /**
   * Renews our member Lease and every shard Lease this replica holds (each from the Lease it last wrote;
   * a 409: the round wrote since), all with one renewTime.
   */
  async #renewHeld(): Promise<void> {
    const started = this.#clock.now();
    await Promise.all([
      this.#renewMember(started),
      ...[...this.#held].map(async ([shard, h]) => {
        const d = decideLease(h.lease, this.#o.identity, started, this.#duration);
        if (d.kind !== 'renew') return;
        try {
          const written = await this.#write('PUT', leasePath(this.#o.namespace, this.#o.leaseName(shard)), {
            ...h.lease,
            spec: d.spec,
          });
          // Still held (the round did not drop it meanwhile) and not renewed later by the round.
          const now = this.#held.get(shard);
          if (now !== undefined && !this.#stopped && now.validUntil < started + this.#renewDeadlineMs) {
            // A renewal that lands after the hold lapsed (a slow PUT, a late timer on a loaded host) ends
            // a gap in which the shard gate turned keys away as not ours; they are gone from the queue, so
            // the shard counts as gained again and its keys are enqueued (as after an acquire).
            const lapsed = !this.owns(shard);
            this.#held.set(shard, { validUntil: started + this.#renewDeadlineMs, lease: written });
            if (lapsed && this.owns(shard)) {
              this.#o.log?.info(
                { shard, lease: this.#o.leaseName(shard) },
                'renewed shard lease after it lapsed',
              );
              this.#o.onGained?.(shard);
            }
          }
        } catch (e) {
          const level = isConflict(e) ? 'debug' : 'warn';
          this.#o.log?.[level](
            { shard, lease: this.#o.leaseName(shard), err: String(e) },
            'lease renewal failed',
          );
        }
      }),
    ]);
  }

  /** Writes our member Lease; whether it was written. */
  async #renewMember(now: number): Promise<boolean> {
    try {
      await this.#membership.renew(now);
      return true;
    } catch (e) {
      this.#o.log?.warn({ lease: this.#membership.name, err: String(e) }, 'could not renew member lease');
      return false;
    }
  }

  async #tick(): Promise<void> {
    // Written before any shard Lease we take, so after a crash it does not outlive them.
    if (!this.#joined) this.#joined = await this.#renewMember(this.#clock.now());
    const members = await this.#membership.list(() => this.#clock.now());
    const n = this.#o.shards;
    const reads = await Promise.allSettled(
      Array.from({ length: n }, (_, s) =>
        readLease(this.#o.transport, this.#o.namespace, this.#o.leaseName(s)),
      ),
    );
    const now = this.#clock.now();
    const states = reads.map((r, s) => this.#stateOf(s, r, now));
    this.#nextRoundMs = nextRoundDelay(
      reads.map((r) =>
        r.status === 'fulfilled' ? foreignExpiry(r.value, this.#o.identity, now) : undefined,
      ),
      now,
      this.#retryMs,
    );
    // Without a member list, fall back to taking whatever is free and giving nothing up:
    // shards may bunch up on one replica but none is left unworked.
    const d = decideBalance({
      me: this.#o.identity,
      members: members ?? [],
      shards: states,
      staleAfterMs: this.#duration * 1000,
    });
    // Each replica starts its round at its own shard, so replicas started together tend to
    // try different shards first.
    const first = fnv1a32(this.#o.identity) % n;
    for (let i = 0; i < n && !this.#stopped; i++) {
      const s = (first + i) % n;
      try {
        await this.#act(s, reads[s] as Read, d, members?.length ?? 1);
      } catch (e) {
        // 409: another candidate wrote first (a lost race, not a failure).
        const level = isConflict(e) ? 'debug' : 'warn';
        this.#o.log?.[level](
          { shard: s, lease: this.#o.leaseName(s), err: String(e) },
          'lease attempt failed',
        );
      }
      this.#checkExpiry(s);
    }
  }

  #stateOf(shard: number, r: Read, now: number): ShardState {
    if (r.status === 'rejected') {
      return this.owns(shard) ? { kind: 'held', holder: this.#o.identity } : { kind: 'unknown' };
    }
    const holder = r.value?.spec?.holderIdentity;
    if (holder && isLeaseLive(r.value, now)) {
      this.#freeSince.delete(shard);
      return { kind: 'held', holder };
    }
    const since = this.#freeSince.get(shard) ?? now;
    this.#freeSince.set(shard, since);
    return { kind: 'free', freeForMs: now - since };
  }

  async #act(shard: number, r: Read, d: BalanceDecision, members: number): Promise<void> {
    if (r.status === 'rejected') throw r.reason;
    const current = r.value;
    const holder = current?.spec?.holderIdentity;
    if (d.release.includes(shard) && current !== undefined) {
      // Released from the Lease we last wrote: the renewals may have written since the round read it.
      const mine = this.#held.get(shard)?.lease ?? current;
      // Stop working it before anyone else can take it.
      if (this.#held.delete(shard)) this.#o.onLost?.(shard);
      await this.#putReleased(mine);
      this.#o.log?.info(
        { shard, lease: this.#o.leaseName(shard), identity: this.#o.identity, members, share: d.share },
        'released shard lease for balance',
      );
      return;
    }
    // A shard we hold and still own is renewed by #renewHeld, not here.
    if (this.owns(shard) && holder === this.#o.identity) return;
    if (
      d.acquire.includes(shard) ||
      (holder === this.#o.identity && isLeaseLive(current, this.#clock.now()))
    ) {
      await this.#take(shard, current);
      return;
    }
    // Someone else's, or free and left for someone else: if we thought we held it, our hold lapsed.
    this.#drop(shard, holder ? `held by ${holder}` : 'lease is free');
  }

  async #take(shard: number, current: Lease | undefined): Promise<void> {
    const name = this.#o.leaseName(shard);
    const started = this.#clock.now();
    const d = decideLease(current, this.#o.identity, started, this.#duration);
    let written: Lease;
    switch (d.kind) {
      case 'wait':
        this.#drop(shard, `held by ${d.holder}`);
        return;
      case 'create':
        written = await this.#write('POST', leasePath(this.#o.namespace), {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace: this.#o.namespace },
          spec: d.spec,
        });
        break;
      case 'renew':
      case 'acquire':
        if (current === undefined) return;
        written = await this.#write('PUT', leasePath(this.#o.namespace, name), { ...current, spec: d.spec });
        break;
    }
    const gained = !this.owns(shard);
    // Recorded even when stopping, so stop() releases a lease won in its last round.
    // Measured from the renewTime we wrote, which is when others start counting.
    this.#held.set(shard, { validUntil: started + this.#renewDeadlineMs, lease: written });
    if (gained && !this.#stopped) {
      this.#o.log?.info({ shard, lease: name, identity: this.#o.identity }, 'acquired shard lease');
      this.#o.onGained?.(shard);
    }
  }

  async #write(method: 'POST' | 'PUT', path: string, body: Lease): Promise<Lease> {
    return await this.#o.transport.request<Lease>(method, path, body);
  }

  #checkExpiry(shard: number): void {
    const h = this.#held.get(shard);
    if (h !== undefined && h.validUntil <= this.#clock.now())
      this.#drop(shard, 'not renewed within the renew deadline');
  }

  #drop(shard: number, why: string): void {
    if (!this.#held.delete(shard)) return;
    this.#o.log?.warn({ shard, lease: this.#o.leaseName(shard), why }, 'lost shard lease');
    this.#o.onLost?.(shard);
  }
}

/** Whether the holder of a lease is live now (read from the API server). */
export async function leaseLive(
  t: Transport,
  namespace: string,
  name: string,
  now = Date.now(),
): Promise<boolean> {
  return isLeaseLive(await readLease(t, namespace, name), now);
}

export type { Lease, LeaseSpec };
