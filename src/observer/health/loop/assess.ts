// assess: one assessment of a Release's inventory (docs/design.md#assessment, steps 2-8). Rules are compiled
// first (a compile error stops the whole Release), the target cluster is resolved, anchors are read
// before any write, each entry's live object is read and judged, and the result is written back.
// Live objects are read through deps.read: the observer's watch caches where they are trusted, else
// ../../live-reads.ts (docs/design.md#watched-reads). An entry in flux (./in-flux.ts) is not read, and a
// pass that judged from an inventory older than a pending note fails its write with 409, so an entry is
// never judged on another render's object. A workload the rules find not available gets the why of its
// Pods in its message (../pod-why.ts), read through deps.pods: one read per namespace and pass at most.
import { parseOptionalDuration } from '../../../api/duration.ts';
import type { InventoryEntry, Release, ReleaseInventory } from '../../../api/types.ts';
import type { KubeClient } from '../../../kube/client.ts';
import type { MergedInventory } from '../../../kube/inventory-parts.ts';
import { assertNever } from '../../../lib/assert-never.ts';
import { errorMessage } from '../../../lib/errors.ts';
import { nameOf, namespaceOf } from '../../../lib/names.ts';
import { apiVersionOf } from '../../../render/keys.ts';
import { releaseLabelValue } from '../../../store/layout.ts';
import { type LiveRead, type ReadLive, readLive } from '../../live-reads.ts';
import { type ReadPods, readPods } from '../../pod-reads.ts';
import { type Evaluator, newEvaluator } from '../evaluator.ts';
import { explainDue, whyNotAvailable, withWhy, workloadSelector } from '../pod-why.ts';
import { deriveState, type Observation } from '../state.ts';
import { entryKey, type HealthRuleSetLike } from '../types.ts';
import { assessable } from './in-flux.ts';
import { inventoryHealthItems } from './plan.ts';
import type { Target } from './target.ts';
import { writeInventoryHealth } from './writes.ts';

const yieldEveryMs = 20;

/** Stops the assessment of the whole Release: Healthy=Unknown with this message. */
export class AssessError extends Error {
  override readonly name = 'AssessError';
}

export interface AssessDeps {
  readonly ruleSets: readonly HealthRuleSetLike[];
  /** The inventory, every part, as this pass sees it (cache, or the objects a write of this pass returned). */
  readonly inventory: MergedInventory | undefined;
  /** Called with each part as its write lands (the loop's memo of its own writes). */
  readonly onWritten?: (replaced: ReleaseInventory, written: ReleaseInventory) => void;
  readonly resolveTarget: () => Promise<Target>;
  /** The cluster convoy runs in: where the inventory lives. */
  readonly local: KubeClient;
  readonly now: () => Date;
  /** Entries of one kind and namespace from which one LIST replaces the GETs (default 20; 0: never list). */
  readonly listThreshold?: number;
  /** Parallel reads (default 16). */
  readonly concurrency?: number;
  /** Compiles the rule sets (default newEvaluator; the controller shares compilations, ../evaluator-memo.ts). */
  readonly compile?: (ruleSets: readonly HealthRuleSetLike[]) => Evaluator;
  /** How live objects are read (default readLive: from the API; the observer reads its watch caches). */
  readonly read?: ReadLive;
  /** How the Pods of workloads not available are read (default readPods: from the API; the observer's Pod watches). */
  readonly pods?: ReadPods;
}

export interface Assessment {
  /** Every entry as read before this pass wrote. */
  readonly before: readonly InventoryEntry[];
  /** Every entry with this pass's state for the ones assessed. */
  readonly after: readonly InventoryEntry[];
  /** The entries assessed (those with a renderRef). */
  readonly assessed: readonly InventoryEntry[];
  /** The parts this pass wrote ([] when nothing changed). */
  readonly written: readonly ReleaseInventory[];
  readonly reads: number;
}

/** assess (docs/design.md#assessment): step 1, collectRules, is the caller's (deps.ruleSets). */
export async function assess(release: Release, deps: AssessDeps): Promise<Assessment> {
  // 2. Compile every rule; a compile error stops the assessment of the whole Release.
  let evaluator: Evaluator;
  try {
    evaluator = (deps.compile ?? newEvaluator)(deps.ruleSets);
  } catch (err) {
    throw new AssessError(errorMessage(err));
  }
  // 3. The inventory from the cache; none, or an empty one, gives an empty result.
  const inv = deps.inventory;
  const empty = {
    before: [],
    after: [],
    assessed: [],
    written: [],
    reads: 0,
  };
  if (inv === undefined || (inv.inventory.entries ?? []).length === 0) return empty;
  // 4. The target Cluster; missing or unreachable stops the assessment.
  let target: Target;
  try {
    target = await deps.resolveTarget();
  } catch (err) {
    throw new AssessError(errorMessage(err));
  }
  // 5. priorAndAnchors, before this pass writes.
  const before = priorAndAnchors(inv);
  const deadlineMs = parseOptionalDuration(release.spec.healthAssessment?.deadline);
  const toAssess = assessable(before, inv.inventory.pending ?? []);
  const live = await (deps.read ?? readLive)(
    target.client,
    toAssess.map((e) => ({
      apiVersion: apiVersionOf(e),
      kind: e.kind,
      ...(e.namespace ? { namespace: e.namespace } : {}),
      name: e.name,
      ...(e.renderRef !== undefined ? { renderRef: e.renderRef } : {}),
      ...(e.appliedResourceVersion !== undefined ? { appliedResourceVersion: e.appliedResourceVersion } : {}),
    })),
    {
      releaseLabel: releaseLabelValue(namespaceOf(release), nameOf(release)),
      ...(deps.listThreshold !== undefined ? { listThreshold: deps.listThreshold } : {}),
      ...(deps.concurrency !== undefined ? { concurrency: deps.concurrency } : {}),
    },
  );
  // No answer at all from the target cluster stops the whole Release.
  if (live.kind === 'unreachable') throw new AssessError(live.message);
  const reads = live.lists + live.gets;
  // 6. assessItem for each entry.
  const now = deps.now();
  const judged = new Map<string, InventoryEntry>();
  // Evaluation is synchronous: yield to the event loop every few milliseconds, so a Release with many
  // objects or costly rules (each object bounded by the CEL budget) does not hold up other Releases.
  let lastYield = performance.now();
  for (const [i, e] of toAssess.entries()) {
    if (performance.now() - lastYield > yieldEveryMs) {
      await new Promise((resolve) => setImmediate(resolve));
      lastYield = performance.now();
    }
    judged.set(entryKey(e), assessItem(e, live.reads[i] as LiveRead, evaluator, deadlineMs, now));
  }
  await explainUnavailable(target.client, toAssess, live.reads, judged, deps.pods ?? readPods, now);
  // 7. The entries before and after: the wake-up decision reads renderAdvanced from them (../edges.ts).
  const after = before.map((e) => judged.get(entryKey(e)) ?? e);
  const assessed = after.filter((e) => e.renderRef !== undefined);
  // 8. writeInventoryHealth; an empty set writes nothing.
  const written = await writeInventoryHealth(deps.local, inv, inventoryHealthItems(assessed), deps.onWritten);
  return { before, after, assessed, written, reads };
}

/**
 * Adds to the message of each workload judged Progressing or Degraded for a few seconds (explainDue) why
 * its Pods are not available (../pod-why.ts); the state and the rule stay as judged. The Pods of every namespace concerned are read
 * once, and `pods` is called even with none, so the watches of namespaces no longer concerned stop.
 */
async function explainUnavailable(
  client: KubeClient,
  entries: readonly InventoryEntry[],
  reads: readonly LiveRead[],
  judged: Map<string, InventoryEntry>,
  pods: ReadPods,
  now: Date,
): Promise<void> {
  const unavailable = entries.flatMap((e, i) => {
    const read = reads[i] as LiveRead;
    const j = judged.get(entryKey(e));
    if (read.kind !== 'found' || j === undefined || !explainDue(j.state, j.firstUnhealthy, now)) return [];
    const selector = workloadSelector(read.object);
    const namespace = read.object.metadata?.namespace ?? e.namespace ?? '';
    return selector === undefined || namespace === '' ? [] : [{ entry: j, selector, namespace }];
  });
  const byNamespace = await pods(client, [...new Set(unavailable.map((u) => u.namespace))]);
  for (const u of unavailable) {
    const got = byNamespace.get(u.namespace);
    if (got === undefined) continue;
    const why = got.kind === 'error' ? got.message : whyNotAvailable(u.selector, got.pods);
    judged.set(entryKey(u.entry), { ...u.entry, message: withWhy(u.entry.message ?? '', why) });
  }
}

/** Each entry's previous state and firstUnhealthy anchor, as stored: read before this pass writes. */
export function priorAndAnchors(inventory: MergedInventory): readonly InventoryEntry[] {
  return inventory.inventory.entries ?? [];
}

/**
 * One entry's state from its live object (docs/design.md#entry-state): the rules' result for the object
 * as read, or "not found", through deriveState with the entry's anchor. assessedRenderRef is the entry's
 * renderRef, the render the controller applied for this object.
 */
export function assessItem(
  entry: InventoryEntry,
  read: LiveRead,
  evaluator: Evaluator,
  deadlineMs: number | undefined,
  now: Date,
): InventoryEntry {
  let obs: Observation;
  switch (read.kind) {
    case 'absent':
      obs = { kind: 'notFound' };
      break;
    case 'error':
      obs = { kind: 'found', result: { kind: 'error', rule: '', message: read.message } };
      break;
    case 'found':
      obs = { kind: 'found', result: evaluator.evaluate(read.object) };
      break;
    default:
      assertNever(read);
  }
  const d = deriveState({ observation: obs, firstUnhealthy: entry.firstUnhealthy, deadlineMs, now });
  const { firstUnhealthy: _drop, rule: _rule, ...rest } = entry;
  return {
    ...rest,
    state: d.state,
    message: d.message,
    ...(d.rule ? { rule: d.rule } : {}),
    ...(d.firstUnhealthy !== undefined ? { firstUnhealthy: d.firstUnhealthy } : {}),
    assessedRenderRef: entry.renderRef,
  };
}
