// Pure lease decisions for leader election over coordination.k8s.io/v1 Lease objects: who
// holds a lease, whether it is live, and what a candidate should write next. Time is compared
// as renewTime + leaseDurationSeconds against the caller's clock (one clock domain assumed;
// the slack between processes on different machines must stay well below the duration).

export type LeaseSpec = {
  readonly holderIdentity?: string | null;
  readonly leaseDurationSeconds?: number;
  readonly acquireTime?: string | null;
  readonly renewTime?: string | null;
  readonly leaseTransitions?: number;
};

export type Lease = {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
  };
  readonly spec?: LeaseSpec;
};

/** Live: held by someone and renewed within its duration. */
export function isLeaseLive(lease: Lease | undefined, nowMs: number): boolean {
  const s = lease?.spec;
  if (!s?.holderIdentity || !s.renewTime || !s.leaseDurationSeconds) return false;
  const renewed = Date.parse(s.renewTime);
  if (Number.isNaN(renewed)) return false;
  return renewed + s.leaseDurationSeconds * 1000 > nowMs;
}

/** When a Lease someone other than `me` holds live now runs out (ms), or undefined for any other Lease. */
export function foreignExpiry(lease: Lease | undefined, me: string, nowMs: number): number | undefined {
  const s = lease?.spec;
  if (!s?.holderIdentity || s.holderIdentity === me || !isLeaseLive(lease, nowMs)) return undefined;
  return Date.parse(s.renewTime ?? '') + (s.leaseDurationSeconds ?? 0) * 1000;
}

/** How far past a Lease's expiry a replica looks again: its clock and the holder's are one domain. */
export const EXPIRY_MARGIN_MS = 200;

/**
 * The wait before an elector's next round: its cadence, or just after the soonest of `expiries` (other
 * holders' Leases, see foreignExpiry) when that comes first — a holder that stopped renewing is taken
 * over when its Lease runs out, not up to a cadence later (docs/design.md#sharding).
 */
export function nextRoundDelay(
  expiries: readonly (number | undefined)[],
  nowMs: number,
  cadenceMs: number,
): number {
  const soonest = Math.min(...expiries.filter((e): e is number => e !== undefined));
  return Math.max(0, Math.min(cadenceMs, soonest - nowMs + EXPIRY_MARGIN_MS));
}

/**
 * The holder came back without a new acquire: `old` had lapsed by `nowMs` and `next` is live. A watcher
 * that acts only on a new holder or acquireTime misses a renewal that lands after the lease lapsed (a
 * slow holder, or a watch event that arrived late), yet in the gap it may have judged the holder gone.
 */
export function leaseRevived(old: Lease | undefined, next: Lease | undefined, nowMs: number): boolean {
  return !isLeaseLive(old, nowMs) && isLeaseLive(next, nowMs);
}

export type LeaseDecision =
  | { readonly kind: 'create'; readonly spec: LeaseSpec }
  | { readonly kind: 'renew'; readonly spec: LeaseSpec }
  | { readonly kind: 'acquire'; readonly spec: LeaseSpec }
  | { readonly kind: 'wait'; readonly holder: string };

/** What candidate `me` should do with the lease as read (undefined: it does not exist). */
export function decideLease(
  lease: Lease | undefined,
  me: string,
  nowMs: number,
  durationSeconds: number,
): LeaseDecision {
  const now = microTime(nowMs);
  if (lease === undefined) {
    return {
      kind: 'create',
      spec: {
        holderIdentity: me,
        leaseDurationSeconds: durationSeconds,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: 0,
      },
    };
  }
  const s = lease.spec ?? {};
  if (s.holderIdentity === me && isLeaseLive(lease, nowMs)) {
    return { kind: 'renew', spec: { ...s, leaseDurationSeconds: durationSeconds, renewTime: now } };
  }
  if (s.holderIdentity && s.holderIdentity !== me && isLeaseLive(lease, nowMs)) {
    return { kind: 'wait', holder: s.holderIdentity };
  }
  // Free, expired, or our own expired hold (someone may have seen it expire: count a transition).
  return {
    kind: 'acquire',
    spec: {
      holderIdentity: me,
      leaseDurationSeconds: durationSeconds,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: (s.leaseTransitions ?? 0) + (s.holderIdentity ? 1 : 0),
    },
  };
}

/** The spec written on a graceful release: no holder, so others may acquire at once. */
export function releasedSpec(spec: LeaseSpec, nowMs: number): LeaseSpec {
  return { ...spec, holderIdentity: null, leaseDurationSeconds: 1, renewTime: microTime(nowMs) };
}

/** RFC 3339 with microseconds, the wire format of metav1.MicroTime. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
