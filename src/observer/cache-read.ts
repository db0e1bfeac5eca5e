// Whether one live object may be read from the observer's watch cache of its target cluster
// (./target-watches.ts, docs/design.md#watched-reads) or must be read from the API. A cache lags the apply
// by a watch event, so it is trusted for an entry only once a read from the API after that entry's
// render was applied gave a resourceVersion (the floor) that the cached object has reached: never is a
// Release judged from an object older than the apply it records. Pure; the table test is beside it.

/** A fresh read of the object for this renderRef returned this resourceVersion. */
export interface Floor {
  readonly renderRef: string;
  readonly resourceVersion: string;
}

export interface CacheReadInput {
  /** The watch of this kind: synced (its cache is complete), not yet, or given up (LIST forbidden …). */
  readonly watch: 'synced' | 'starting' | 'fallback';
  /** The entry's renderRef; undefined: nothing to tie freshness to. */
  readonly renderRef: string | undefined;
  readonly floor: Floor | undefined;
  /** The cached object's resourceVersion; undefined: not in the cache. */
  readonly cachedResourceVersion: string | undefined;
}

export type CacheRead =
  | { readonly kind: 'cache' }
  | {
      readonly kind: 'api';
      /**
       * noWatch: no synced cache; unconfirmed: no fresh read since this render was applied; missing: not
       * cached (deleted, or its label removed: only a GET tells); stale: the cache has not caught up.
       */
      readonly why: 'noWatch' | 'unconfirmed' | 'missing' | 'stale';
    };

export function decideCacheRead(i: CacheReadInput): CacheRead {
  if (i.watch !== 'synced') return { kind: 'api', why: 'noWatch' };
  if (i.renderRef === undefined || i.floor === undefined || i.floor.renderRef !== i.renderRef)
    return { kind: 'api', why: 'unconfirmed' };
  if (i.cachedResourceVersion === undefined) return { kind: 'api', why: 'missing' };
  return atLeast(i.cachedResourceVersion, i.floor.resourceVersion)
    ? { kind: 'cache' }
    : { kind: 'api', why: 'stale' };
}

/**
 * The floor of a ref: the version its apply returned, recorded in the inventory beside its renderRef, or
 * else the version a read from the API after that apply gave. Either is a version the object reached
 * after the render was applied, so a cache that holds it or a newer one is fresh for the render — with
 * the recorded one, no GET at all (docs/design.md#watched-reads).
 */
export function floorOf(
  read: Floor | undefined,
  r: { readonly renderRef?: string; readonly appliedResourceVersion?: string },
): Floor | undefined {
  if (read !== undefined && read.renderRef === r.renderRef) return read;
  if (r.renderRef !== undefined && r.appliedResourceVersion !== undefined)
    return { renderRef: r.renderRef, resourceVersion: r.appliedResourceVersion };
  return read;
}

/**
 * a ≥ b for resourceVersions of one object, which kube-apiserver serves from etcd revisions (decimal
 * integers); anything else is not comparable, so not trusted.
 */
export function atLeast(a: string, b: string): boolean {
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return false;
  return BigInt(a) >= BigInt(b);
}
