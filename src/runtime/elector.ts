// Leader election per shard over Lease objects. Each replica runs one elector for its
// process kind (controller or observer) and competes for every shard; a shard is worked by
// the replica holding its Lease. Writes carry the resourceVersion that was read, so two
// candidates that both saw an expired lease cannot both win (one gets 409 Conflict).
// A holder that cannot renew for renewDeadline stops working the shard before its lease
// can expire for others (renewDeadline < duration). stop() releases held leases so a
// graceful shutdown hands shards over at once; a crash hands them over after the duration.
import type { Logger } from 'pino';
import { isConflict, isNotFound } from '../kube/errors.ts';
import { type Clock, realClock, type TimerHandle } from './clock.ts';
import { decideLease, isLeaseLive, type Lease, type LeaseSpec, releasedSpec } from './lease.ts';
import { fnv1a32 } from './shard.ts';
import type { Transport } from './transport.ts';

/** Whether this replica owns a shard now. The shard gate of the seeds. */
export interface ShardGate {
  owns(shard: number): boolean;
}

export type ElectorOptions = {
  readonly transport: Transport;
  readonly namespace: string;
  readonly leaseName: (shard: number) => string;
  readonly identity: string;
  readonly shards: number;
  readonly leaseDurationSeconds?: number;
  /** How often to try to acquire or renew; default a third of the duration. */
  readonly retryMs?: number;
  /** Stop working a shard when it was last renewed longer ago than this; default 2/3 of the duration. */
  readonly renewDeadlineMs?: number;
  readonly clock?: Clock;
  readonly log?: Logger;
  readonly onGained?: (shard: number) => void;
  readonly onLost?: (shard: number) => void;
};

type Held = { validUntil: number; lease: Lease };

export function leasePath(namespace: string, name?: string): string {
  const base = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

export async function readLease(t: Transport, namespace: string, name: string): Promise<Lease | undefined> {
  try {
    return await t.request<Lease>('GET', leasePath(namespace, name));
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

export class ShardElector implements ShardGate {
  readonly #o: ElectorOptions;
  readonly #clock: Clock;
  readonly #duration: number;
  readonly #retryMs: number;
  readonly #renewDeadlineMs: number;
  readonly #held = new Map<number, Held>();
  #timer: TimerHandle | undefined;
  #tick: Promise<void> | undefined;
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
  }

  owns(shard: number): boolean {
    const h = this.#held.get(shard);
    return h !== undefined && h.validUntil > this.#clock.now();
  }

  held(): number[] {
    return [...this.#held.keys()].filter((s) => this.owns(s)).sort((a, b) => a - b);
  }

  start(): void {
    if (this.#tick !== undefined || this.#stopped) return;
    this.#tick = this.#round();
  }

  /** Stops competing; with release, gives up held leases so another replica takes them at once. */
  async stop(release = true): Promise<void> {
    this.#stopped = true;
    if (this.#timer) this.#clock.clearTimeout(this.#timer);
    await this.#tick;
    const held = [...this.#held.entries()];
    this.#held.clear();
    for (const [shard] of held) {
      this.#o.onLost?.(shard);
      if (release) await this.#release(shard);
    }
  }

  /** Frees our hold of a shard's lease, re-reading it so a stale resourceVersion cannot make it fail. */
  async #release(shard: number): Promise<void> {
    const name = this.#o.leaseName(shard);
    try {
      const current = await readLease(this.#o.transport, this.#o.namespace, name);
      if (current?.spec?.holderIdentity !== this.#o.identity) return;
      await this.#o.transport.request('PUT', leasePath(this.#o.namespace, name), {
        ...current,
        spec: releasedSpec(current.spec, this.#clock.now()),
      });
      this.#o.log?.info({ shard, lease: name }, 'released shard lease');
    } catch (e) {
      this.#o.log?.warn({ shard, lease: name, err: String(e) }, 'could not release lease');
    }
  }

  async #round(): Promise<void> {
    // Each replica starts its round at its own shard, so replicas started together tend to
    // split the shards instead of all racing for shard 0 first.
    const first = fnv1a32(this.#o.identity) % this.#o.shards;
    for (let i = 0; i < this.#o.shards && !this.#stopped; i++) {
      const s = (first + i) % this.#o.shards;
      try {
        await this.#tryShard(s);
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
    if (this.#stopped) return;
    this.#timer = this.#clock.setTimeout(() => {
      this.#tick = this.#round();
    }, this.#retryMs);
  }

  async #tryShard(shard: number): Promise<void> {
    const name = this.#o.leaseName(shard);
    const t = this.#o.transport;
    const started = this.#clock.now();
    const current = await readLease(t, this.#o.namespace, name);
    const d = decideLease(current, this.#o.identity, started, this.#duration);
    let written: Lease;
    switch (d.kind) {
      case 'wait':
        // Someone else holds it: if we thought we did, our hold lapsed and they took over.
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
    // Measured from before the read: the server-side renewTime is no earlier than this.
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
