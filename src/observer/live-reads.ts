// Reading a Release's live objects from its target cluster, shared by the health and drift loops. Where
// many entries share an apiVersion, kind and namespace, one LIST by the Release label replaces their GETs;
// an entry that LIST misses still gets a GET, because someone may have removed the label (for the drift
// loop that is drift, not a deletion). Which groups are listed is the pure planReads; readLive does it,
// a page at a time (LIST_PAGE): one answer for 10,000 ConfigMaps of 2 KiB was ~30 MB, held whole by the
// API server and parsed on the observer's event loop in one go (docs/design.md#inventory-parts).
import { LABEL_RELEASE } from '../api/constants.ts';
import type { KubeClient } from '../kube/client.ts';
import { isKubeError } from '../kube/errors.ts';
import { errorMessage } from '../lib/errors.ts';
import { forEachBounded } from '../runtime/index.ts';
import type { KubeObject } from './health/types.ts';

/** Entries of one apiVersion, kind and namespace from which one LIST replaces their GETs. */
export const DEFAULT_LIST_THRESHOLD = 20;
const DEFAULT_CONCURRENCY = 16;
/** Items per LIST page, as client-go's pager and the runtime's informer ask. */
export const LIST_PAGE = 500;

/** One object to read. */
export interface LiveRef {
  readonly apiVersion: string;
  readonly kind: string;
  /** Absent or "" for a cluster-scoped object. */
  readonly namespace?: string;
  readonly name: string;
  /** The renderRef of the inventory entry recording it (readLive ignores it; ./target-watches.ts does not). */
  readonly renderRef?: string;
  /** The entry's appliedResourceVersion: what the apply of renderRef returned (./target-watches.ts). */
  readonly appliedResourceVersion?: string;
}

/** How a loop reads live objects: readLive, or through the watch caches (./target-watches.ts). */
export type ReadLive = (
  client: KubeClient,
  refs: readonly LiveRef[],
  opts: ReadOptions,
) => Promise<LiveReads>;

/** One group to LIST: `entries` are indices into the refs given to planReads. */
export interface ListGroup {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly entries: readonly number[];
}

export interface ReadPlan {
  readonly lists: readonly ListGroup[];
  /** Indices of the refs read by GET from the start. */
  readonly gets: readonly number[];
}

/** Groups refs by apiVersion, kind and namespace; groups of at least `threshold` (> 0) are listed. */
export function planReads(refs: readonly LiveRef[], threshold: number): ReadPlan {
  const groups = new Map<string, number[]>();
  refs.forEach((r, i) => {
    const key = `${r.apiVersion}|${r.kind}|${r.namespace ?? ''}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [i]);
    else g.push(i);
  });
  const lists: ListGroup[] = [];
  const gets: number[] = [];
  for (const entries of groups.values()) {
    if (threshold <= 0 || entries.length < threshold) {
      gets.push(...entries);
      continue;
    }
    const first = refs[entries[0] as number] as LiveRef;
    lists.push({
      apiVersion: first.apiVersion,
      kind: first.kind,
      ...(first.namespace ? { namespace: first.namespace } : {}),
      entries,
    });
  }
  return { lists, gets };
}

export type LiveRead =
  | { readonly kind: 'found'; readonly object: KubeObject }
  | { readonly kind: 'absent' }
  /** The API answered with an error (403, 500 …): this entry cannot be judged. */
  | { readonly kind: 'error'; readonly message: string };

export type LiveReads =
  /** `reads[i]` is what was read for `refs[i]`. */
  | {
      readonly kind: 'read';
      readonly reads: readonly LiveRead[];
      readonly lists: number;
      readonly gets: number;
    }
  /** A request got no answer at all: nothing read can be trusted to be complete. */
  | { readonly kind: 'unreachable'; readonly message: string; readonly lists: number; readonly gets: number };

export interface ReadOptions {
  /** Value of the convoy.kumodo.io/release label the deployer adds. */
  readonly releaseLabel: string;
  /** Default DEFAULT_LIST_THRESHOLD; 0: never list. */
  readonly listThreshold?: number;
  /** Parallel requests (default 16). */
  readonly concurrency?: number;
  /** Items per LIST page (default LIST_PAGE). */
  readonly pageSize?: number;
}

export async function readLive(
  client: KubeClient,
  refs: readonly LiveRef[],
  opts: ReadOptions,
): Promise<LiveReads> {
  const plan = planReads(refs, opts.listThreshold ?? DEFAULT_LIST_THRESHOLD);
  const limit = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const reads: LiveRead[] = new Array(refs.length);
  const byGet = [...plan.gets];
  let lists = 0;
  let gets = 0;
  let unreachable: string | undefined;
  const failed = (err: unknown): string | undefined => {
    if (isKubeError(err)) return `read failed: ${err.apiMessage}`;
    unreachable ??= `target cluster unreachable: ${errorMessage(err)}`;
    return undefined;
  };
  const selector = `${LABEL_RELEASE}=${opts.releaseLabel}`;

  await forEachBounded(plan.lists, limit, async (g) => {
    if (unreachable !== undefined) return;
    lists++;
    let items: KubeObject[];
    try {
      items = await client.listAll<KubeObject>(
        { apiVersion: g.apiVersion, kind: g.kind, ...(g.namespace ? { namespace: g.namespace } : {}) },
        { labelSelector: selector, limit: opts.pageSize ?? LIST_PAGE },
      );
    } catch (err) {
      // A refused LIST (e.g. RBAC allows get but not list) leaves each entry to its own GET.
      if (failed(err) !== undefined) byGet.push(...g.entries);
      return;
    }
    const byName = new Map(items.map((o) => [o.metadata?.name ?? '', o]));
    for (const i of g.entries) {
      const o = byName.get((refs[i] as LiveRef).name);
      // Items of a LIST carry no apiVersion/kind; health rules and the drift comparison expect them.
      if (o !== undefined)
        reads[i] = { kind: 'found', object: { ...o, apiVersion: g.apiVersion, kind: g.kind } };
      else byGet.push(i);
    }
  });

  await forEachBounded(byGet, limit, async (i) => {
    if (unreachable !== undefined) return;
    const r = refs[i] as LiveRef;
    gets++;
    try {
      const o = await client.get<KubeObject>({
        apiVersion: r.apiVersion,
        kind: r.kind,
        ...(r.namespace ? { namespace: r.namespace } : {}),
        name: r.name,
      });
      reads[i] = o === undefined ? { kind: 'absent' } : { kind: 'found', object: o };
    } catch (err) {
      const message = failed(err);
      if (message !== undefined) reads[i] = { kind: 'error', message };
    }
  });

  if (unreachable !== undefined) return { kind: 'unreachable', message: unreachable, lists, gets };
  return { kind: 'read', reads, lists, gets };
}
