// One drift check of a Release's inventory: each entry that carries a renderRef is compared with the
// object of that render (as the deployer applied it: plus the release label) read live from the target
// cluster. Renders come from the render store and are kept in memory by renderRef (content-addressed,
// so a cached one can never be stale). Live objects are read through ../live-reads.ts: one LIST by the
// release label per kind and namespace with many entries, a GET for the rest and for what a LIST missed
// (an object whose label someone removed is drift, not deleted). An entry that cannot be compared is
// `unknown` with why; a target that does not answer at all fails the whole check.
// An entry whose key the controller noted in `pending` for another render is being applied right now
// (docs/design.md#reconcile-order: noted, applied, then recorded): its live object may already be the
// new render's while the entry still names the old one, so either render's object counts as in sync.
// Without that, a pass landing between the apply and the record reported every ordinary rollout as drift.
import type { InventoryEntry, PendingEntry } from '../../api/types.ts';
import { assertNever } from '../../lib/assert-never.ts';
import { errorMessage } from '../../lib/errors.ts';
import { apiVersionOf, keyString, objectKey } from '../../render/keys.ts';
import { labelled } from '../../render/labelled.ts';
import type { Obj, Render } from '../../render/types.ts';
import type { Target } from '../health/loop/target.ts';
import { type LiveRead, type LiveRef, type ReadLive, readLive } from '../live-reads.ts';
import { type DriftResult, detectDrift } from './detect.ts';
import type { CheckOutcome, EntryOutcome } from './plan.ts';

export interface CheckDeps {
  readonly resolveTarget: () => Promise<Target>;
  /** The render stored under `renderRef` for this Release; undefined when the store has none. */
  readonly render: (renderRef: string) => Promise<Render | undefined>;
  /** Value of the convoy.kumodo.io/release label the deployer adds. */
  readonly releaseLabel: string;
  /** Entries of one kind and namespace from which one LIST replaces their GETs (default 20; 0: never list). */
  readonly listThreshold?: number;
  /** Parallel reads (default 16). */
  readonly concurrency?: number;
  /** How live objects are read (default readLive: from the API; the observer reads its watch caches). */
  readonly read?: ReadLive;
}

export interface Check {
  readonly outcome: CheckOutcome;
  /** Requests for live objects: LISTs plus GETs. */
  readonly reads: number;
  readonly lists: number;
  readonly gets: number;
}

const NO_READS = { reads: 0, lists: 0, gets: 0 };

/** The render each entry's key is being applied for, where it differs from the one the entry records. */
export function inFlightRenders(
  entries: readonly InventoryEntry[],
  pending: readonly PendingEntry[],
): Map<string, string> {
  const recorded = new Map(entries.map((e) => [keyString(keyOf(e)), e.renderRef]));
  const out = new Map<string, string>();
  for (const p of pending) {
    const k = keyString(keyOf(p));
    if (p.renderRef !== undefined && recorded.has(k) && recorded.get(k) !== p.renderRef)
      out.set(k, p.renderRef);
  }
  return out;
}

/** The entry's verdict: against its recorded render, else against the render being applied (if any). */
export function judgeEntry(
  recorded: Parameters<typeof detectDrift>[0],
  applying: Parameters<typeof detectDrift>[0] | undefined,
  live: Parameters<typeof detectDrift>[1],
): DriftResult {
  const result = detectDrift(recorded, live);
  if (result.kind !== 'drifted' || applying === undefined) return result;
  return detectDrift(applying, live).kind === 'inSync' ? { kind: 'inSync' } : result;
}

/**
 * An entry whose live object still has the resourceVersion convoy's apply of its render returned has not
 * changed since: it is what the render applied, so it is in sync without reading the render at all. Not
 * for an entry whose key is being applied for another render (then either render's object counts). Pure.
 */
export function unchangedSinceApply(e: InventoryEntry, live: LiveRead, inFlux: boolean): boolean {
  return (
    !inFlux &&
    live.kind === 'found' &&
    e.appliedResourceVersion !== undefined &&
    live.object.metadata?.resourceVersion === e.appliedResourceVersion
  );
}

export async function checkDrift(
  entries: readonly InventoryEntry[],
  deps: CheckDeps,
  pending: readonly PendingEntry[] = [],
): Promise<Check> {
  const toCheck = entries.filter((e) => e.renderRef !== undefined);
  const applying = inFlightRenders(toCheck, pending);
  if (toCheck.length === 0) return { outcome: { kind: 'checked', entries: [] }, ...NO_READS };
  let target: Target;
  try {
    target = await deps.resolveTarget();
  } catch (err) {
    return { outcome: { kind: 'failed', message: messageOf(err) }, ...NO_READS };
  }
  // Live objects first, by what the inventory records: an object unchanged since convoy applied it needs
  // no render, and a Release whose every object is unchanged reads none (one render-store LIST each
  // otherwise; docs/design.md#drift).
  const live = await (deps.read ?? readLive)(
    target.client,
    toCheck.map(
      (e): LiveRef => ({
        renderRef: e.renderRef as string,
        ...appliedVersionOf(e),
        apiVersion: apiVersionOf(e),
        kind: e.kind,
        ...(e.namespace ? { namespace: e.namespace } : {}),
        name: e.name,
      }),
    ),
    {
      releaseLabel: deps.releaseLabel,
      ...(deps.listThreshold !== undefined ? { listThreshold: deps.listThreshold } : {}),
      ...(deps.concurrency !== undefined ? { concurrency: deps.concurrency } : {}),
    },
  );
  const reads = { reads: live.lists + live.gets, lists: live.lists, gets: live.gets };
  if (live.kind === 'unreachable') return { outcome: { kind: 'failed', message: live.message }, ...reads };
  const out: EntryOutcome[] = new Array(toCheck.length);
  const compare: number[] = [];
  toCheck.forEach((e, i) => {
    const read = live.reads[i] as LiveRead;
    if (unchangedSinceApply(e, read, applying.has(keyString(keyOf(e)))))
      out[i] = { kind: 'checked', entry: keyOf(e), result: { kind: 'inSync' } };
    else compare.push(i);
  });
  const renders = new Map<string, Map<string, Obj> | string>();
  const refs = new Set<string>();
  for (const i of compare) {
    const e = toCheck[i] as InventoryEntry;
    refs.add(e.renderRef as string);
    const next = applying.get(keyString(keyOf(e)));
    if (next !== undefined) refs.add(next);
  }
  for (const ref of refs) {
    try {
      const r = await deps.render(ref);
      renders.set(
        ref,
        r === undefined
          ? `render ${ref.slice(0, 19)} is not in the render store`
          : new Map(r.objects.map((o) => [keyString(objectKey(o)), o])),
      );
    } catch (err) {
      renders.set(ref, `reading render ${ref.slice(0, 19)}: ${messageOf(err)}`);
    }
  }
  const objectOf = (ref: string | undefined, key: string) => {
    const objects = ref === undefined ? undefined : renders.get(ref);
    return typeof objects === 'string' ? objects : objects?.get(key);
  };
  for (const i of compare) {
    const e = toCheck[i] as InventoryEntry;
    const key = keyOf(e);
    const k = keyString(key);
    const desired = objectOf(e.renderRef, k);
    const next = objectOf(applying.get(k), k);
    const alt = typeof next === 'object' ? labelled(next, deps.releaseLabel) : undefined;
    if (typeof desired === 'string' || desired === undefined) {
      out[i] = { kind: 'unknown', entry: key, reason: desired ?? 'not in its render' };
      continue;
    }
    const want = labelled(desired, deps.releaseLabel);
    const read = live.reads[i] as LiveRead;
    switch (read.kind) {
      case 'found':
        out[i] = { kind: 'checked', entry: key, result: judgeEntry(want, alt, read.object) };
        break;
      case 'absent':
        out[i] = { kind: 'checked', entry: key, result: detectDrift(want, undefined) };
        break;
      case 'error':
        out[i] = { kind: 'unknown', entry: key, reason: read.message };
        break;
      default:
        assertNever(read);
    }
  }
  return { outcome: { kind: 'checked', entries: out }, ...reads };
}

const keyOf = (e: InventoryEntry | PendingEntry) => ({
  group: e.group,
  kind: e.kind,
  namespace: e.namespace,
  name: e.name,
});
const messageOf = (err: unknown) => errorMessage(err);

function appliedVersionOf(e: InventoryEntry): { appliedResourceVersion?: string } {
  return e.appliedResourceVersion === undefined ? {} : { appliedResourceVersion: e.appliedResourceVersion };
}
