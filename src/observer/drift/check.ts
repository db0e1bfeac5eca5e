// One drift check of a Release's inventory: each entry that carries a renderRef is compared with the
// object of that render (as the deployer applied it: plus the release label) read live from the target
// cluster. Renders come from the render store and are kept in memory by renderRef (content-addressed,
// so a cached one can never be stale). An entry that cannot be compared is `unknown` with why; a target
// that does not answer at all fails the whole check.
import type { InventoryEntry } from '../../api/types.ts';
import { labelled } from '../../controller/release/deployer.ts';
import { isKubeError } from '../../kube/errors.ts';
import { keyString, objectKey } from '../../render/keys.ts';
import type { Obj, Render } from '../../render/types.ts';
import type { Target } from '../health/loop/target.ts';
import { detectDrift } from './detect.ts';
import type { CheckOutcome, EntryOutcome } from './plan.ts';

export interface CheckDeps {
  readonly resolveTarget: () => Promise<Target>;
  /** The render stored under `renderRef` for this Release; undefined when the store has none. */
  readonly render: (renderRef: string) => Promise<Render | undefined>;
  /** Value of the convoy.kumodo.io/release label the deployer adds. */
  readonly releaseLabel: string;
  /** Parallel reads (default 16). */
  readonly concurrency?: number;
}

export interface Check {
  readonly outcome: CheckOutcome;
  /** GETs of live objects. */
  readonly reads: number;
}

export async function checkDrift(entries: readonly InventoryEntry[], deps: CheckDeps): Promise<Check> {
  const toCheck = entries.filter((e) => e.renderRef !== undefined);
  if (toCheck.length === 0) return { outcome: { kind: 'checked', entries: [] }, reads: 0 };
  let target: Target;
  try {
    target = await deps.resolveTarget();
  } catch (err) {
    return { outcome: { kind: 'failed', message: messageOf(err) }, reads: 0 };
  }
  const renders = new Map<string, Map<string, Obj> | string>();
  for (const ref of new Set(toCheck.map((e) => e.renderRef as string))) {
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
  const out: EntryOutcome[] = new Array(toCheck.length);
  let reads = 0;
  let unreachable: string | undefined;
  await forEachLimit(toCheck, deps.concurrency ?? 16, async (e, i) => {
    const key = { group: e.group, kind: e.kind, namespace: e.namespace, name: e.name };
    const objects = renders.get(e.renderRef as string);
    const desired = typeof objects === 'string' ? objects : objects?.get(keyString(key));
    if (typeof desired === 'string' || desired === undefined) {
      out[i] = { kind: 'unknown', entry: key, reason: desired ?? 'not in its render' };
      return;
    }
    const want = labelled(desired, deps.releaseLabel);
    reads++;
    try {
      const live = await target.client.get<Record<string, unknown>>({
        apiVersion: want.apiVersion,
        kind: want.kind,
        ...(want.metadata.namespace ? { namespace: want.metadata.namespace } : {}),
        name: want.metadata.name,
      });
      out[i] = { kind: 'checked', entry: key, result: detectDrift(want, live) };
    } catch (err) {
      // An API answer (403, 500 …) leaves this entry unknown; no answer at all means the cluster is unreachable.
      if (isKubeError(err))
        out[i] = { kind: 'unknown', entry: key, reason: `read failed: ${err.apiMessage}` };
      else unreachable ??= `target cluster unreachable: ${messageOf(err)}`;
    }
  });
  if (unreachable !== undefined) return { outcome: { kind: 'failed', message: unreachable }, reads };
  return { outcome: { kind: 'checked', entries: out }, reads };
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

async function forEachLimit<T>(
  items: readonly T[],
  limit: number,
  fn: (t: T, i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
