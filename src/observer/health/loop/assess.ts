// assess: one assessment of a Release's inventory (seed "Assessment", steps 2-8). Rules are compiled
// first (a compile error stops the whole Release), the target cluster is resolved, anchors are read
// before any write, each entry's live object is read and judged, and the result is written back.
// Live objects are read by GET through the discovery-resolved path; where many entries share a kind and
// namespace one LIST by the Release label replaces their GETs (entries the LIST misses still get a GET).
import { LABEL_RELEASE } from '../../../api/constants.ts';
import { parseOptionalDuration } from '../../../api/duration.ts';
import type { Release, ReleaseInventory } from '../../../api/types.ts';
import type { KubeClient } from '../../../kube/client.ts';
import { isKubeError } from '../../../kube/errors.ts';
import { renderAdvanced } from '../edges.ts';
import { type Evaluator, newEvaluator } from '../evaluator.ts';
import { deriveState, type Observation } from '../state.ts';
import { entryKey, type HealthRuleSetLike, type InventoryEntry, type KubeObject } from '../types.ts';
import { inventoryHealthItems, toHealthEntry } from './plan.ts';
import type { Target } from './target.ts';
import { writeInventoryHealth } from './writes.ts';

/** Stops the assessment of the whole Release: Healthy=Unknown with this message. */
export class AssessError extends Error {
  override readonly name = 'AssessError';
}

export interface AssessDeps {
  readonly ruleSets: readonly HealthRuleSetLike[];
  /** The inventory as this pass sees it (cache, or the object a write of this pass returned). */
  readonly inventory: ReleaseInventory | undefined;
  readonly resolveTarget: () => Promise<Target>;
  /** The cluster convoy runs in: where the inventory lives. */
  readonly local: KubeClient;
  readonly now: () => Date;
  /** Entries of one kind and namespace from which one LIST replaces the GETs (default 20; 0: never list). */
  readonly listThreshold?: number;
  /** Parallel reads (default 16). */
  readonly concurrency?: number;
}

export interface Assessment {
  /** Every entry as read before this pass wrote. */
  readonly before: readonly InventoryEntry[];
  /** Every entry with this pass's state for the ones assessed. */
  readonly after: readonly InventoryEntry[];
  /** The entries assessed (those with a renderRef). */
  readonly assessed: readonly InventoryEntry[];
  readonly renderAdvanced: boolean;
  /** The inventory after the write (or as read when nothing was written). */
  readonly inventory: ReleaseInventory | undefined;
  readonly wroteInventory: boolean;
  readonly reads: number;
}

export async function assess(release: Release, deps: AssessDeps): Promise<Assessment> {
  let evaluator: Evaluator;
  try {
    evaluator = newEvaluator(deps.ruleSets);
  } catch (err) {
    throw new AssessError(err instanceof Error ? err.message : String(err));
  }
  const inv = deps.inventory;
  const empty = {
    before: [],
    after: [],
    assessed: [],
    renderAdvanced: false,
    inventory: inv,
    wroteInventory: false,
    reads: 0,
  };
  if (inv === undefined || (inv.entries ?? []).length === 0) return empty;
  let target: Target;
  try {
    target = await deps.resolveTarget();
  } catch (err) {
    throw new AssessError(err instanceof Error ? err.message : String(err));
  }
  // priorAndAnchors: state and firstUnhealthy as stored before this pass writes.
  const before = (inv.entries ?? []).map(toHealthEntry);
  const deadlineMs = parseOptionalDuration(release.spec.healthAssessment?.deadline);
  const toAssess = before.filter((e) => e.renderRef !== undefined);
  const { objects, reads } = await readLive(target.client, release, toAssess, deps);
  const now = deps.now();
  const judged = new Map<string, InventoryEntry>();
  for (const e of toAssess) {
    const live = objects.get(entryKey(e));
    let obs: Observation;
    if (live === undefined) obs = { kind: 'notFound' };
    else if (live instanceof Error)
      obs = { kind: 'found', result: { kind: 'error', rule: '', message: live.message } };
    else obs = { kind: 'found', result: evaluator.evaluate(live) };
    const d = deriveState({ observation: obs, firstUnhealthy: e.firstUnhealthy, deadlineMs, now });
    const { firstUnhealthy: _drop, rule: _rule, ...rest } = e;
    judged.set(entryKey(e), {
      ...rest,
      state: d.state,
      message: d.message,
      ...(d.rule ? { rule: d.rule } : {}),
      ...(d.firstUnhealthy !== undefined ? { firstUnhealthy: d.firstUnhealthy } : {}),
      assessedRenderRef: e.renderRef,
    });
  }
  const after = before.map((e) => judged.get(entryKey(e)) ?? e);
  const assessed = after.filter((e) => e.renderRef !== undefined);
  const written = await writeInventoryHealth(deps.local, inv, inventoryHealthItems(assessed));
  return {
    before,
    after,
    assessed,
    renderAdvanced: renderAdvanced(before),
    inventory: written ?? inv,
    wroteInventory: written !== undefined,
    reads,
  };
}

/** Live objects by entry key: the object, undefined when not found, or an Error for a failed read. */
async function readLive(
  client: KubeClient,
  release: Release,
  entries: readonly InventoryEntry[],
  deps: AssessDeps,
): Promise<{ objects: Map<string, KubeObject | Error | undefined>; reads: number }> {
  const objects = new Map<string, KubeObject | Error | undefined>();
  let reads = 0;
  const threshold = deps.listThreshold ?? 20;
  const groups = new Map<string, InventoryEntry[]>();
  for (const e of entries) {
    const g = `${apiVersionOf(e)}|${e.kind}|${e.namespace ?? ''}`;
    const list = groups.get(g) ?? [];
    list.push(e);
    groups.set(g, list);
  }
  const single: InventoryEntry[] = [];
  const selector = `${LABEL_RELEASE}=${release.metadata.namespace}.${release.metadata.name}`;
  for (const group of groups.values()) {
    const first = group[0] as InventoryEntry;
    if (threshold <= 0 || group.length < threshold) {
      single.push(...group);
      continue;
    }
    reads++;
    const listed = await client
      .list<KubeObject>(
        {
          apiVersion: apiVersionOf(first),
          kind: first.kind,
          ...(first.namespace ? { namespace: first.namespace } : {}),
        },
        { labelSelector: selector },
      )
      .catch((err: unknown) => failRead(err));
    const byName = new Map((Array.isArray(listed) ? listed : []).map((o) => [o.metadata?.name ?? '', o]));
    for (const e of group) {
      // A LIST returns items without apiVersion/kind; the rules need them.
      const o = byName.get(e.name);
      if (o !== undefined) objects.set(entryKey(e), { ...o, apiVersion: apiVersionOf(e), kind: e.kind });
      else single.push(e);
    }
  }
  await forEachLimit(single, deps.concurrency ?? 16, async (e) => {
    reads++;
    try {
      const o = await client.get<KubeObject>({
        apiVersion: apiVersionOf(e),
        kind: e.kind,
        ...(e.namespace ? { namespace: e.namespace } : {}),
        name: e.name,
      });
      objects.set(entryKey(e), o);
    } catch (err) {
      objects.set(entryKey(e), failRead(err));
    }
  });
  return { objects, reads };
}

/** An API answer (403, 500 …) makes that entry Unknown; no answer at all means the cluster is unreachable. */
function failRead(err: unknown): Error {
  if (isKubeError(err)) return new Error(`read failed: ${err.apiMessage}`);
  throw new AssessError(`target cluster unreachable: ${err instanceof Error ? err.message : String(err)}`);
}

function apiVersionOf(e: Pick<InventoryEntry, 'group' | 'version'>): string {
  return e.group === '' ? e.version || 'v1' : `${e.group}/${e.version}`;
}

async function forEachLimit<T>(
  items: readonly T[],
  limit: number,
  fn: (t: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
