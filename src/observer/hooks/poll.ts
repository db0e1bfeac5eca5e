// pollHooks: reads the hooks of a ReleaseInventory, polls the workload of each hook that is due
// (shouldPoll), and writes the result with writeHookStatus (SSA, convoy-hook-status). A polling error is
// logged, not returned. The read of the Job or Pod is the only I/O of pollHookWorkload; the decision is
// decideHook.
import { FIELD_MANAGERS } from '../../api/constants.ts';
import { parseOptionalDuration } from '../../api/duration.ts';
import type { InventoryHook, ReleaseInventory } from '../../api/types.ts';
import type { KubeClient } from '../../kube/client.ts';
import { isConflict } from '../../kube/errors.ts';
import type { KubeEvent } from '../../kube/events.ts';
import { errorMessage } from '../../lib/errors.ts';
import type { Logger } from '../../runtime/index.ts';
import { applyInventoryFields } from '../writes.ts';
import {
  decideHook,
  type HookVerdict,
  type JobLike,
  type PodLike,
  shouldPoll,
  type Workload,
  workloadWarnings,
} from './decide.ts';
import { type HookStatusItem, planHookStatus } from './status.ts';

/**
 * Reads the hook's Job or Pod from the target cluster and decides its state (docs/design.md#hook-polling).
 */
export async function pollHookWorkload(
  client: KubeClient,
  defaultNamespace: string,
  hook: InventoryHook,
  now: Date,
): Promise<HookVerdict> {
  const name = hook.workloadName ?? '';
  // Entries armed before the namespace was recorded fall back to the Release's default namespace.
  const namespace = hook.namespace || defaultNamespace;
  let workload: Workload;
  if (hook.kind === 'Pod') {
    const o = await client.get<PodLike>({ apiVersion: 'v1', kind: 'Pod', namespace, name });
    workload = o === undefined ? { kind: 'notFound' } : { kind: 'Pod', object: o };
  } else {
    const o = await client.get<JobLike>({ apiVersion: 'batch/v1', kind: 'Job', namespace, name });
    workload = o === undefined ? { kind: 'notFound' } : { kind: 'Job', object: o };
  }
  const input = { workload, createdAt: hook.createdAt, timeoutMs: parseOptionalDuration(hook.timeout), now };
  const verdict = decideHook(input);
  // Not finished: the Warning Events of the workload and its Pods say why (a ServiceAccount missing, no
  // node fits), now rather than at the timeout.
  if (workload.kind === 'notFound' || (verdict.state !== 'Running' && verdict.reason !== 'Timeout'))
    return verdict;
  const events = await client.listPage<KubeEvent>(
    { apiVersion: 'v1', kind: 'Event', namespace },
    { fieldSelector: 'type=Warning', limit: EVENT_LIMIT },
  );
  const warnings = workloadWarnings(events.items, workload.kind, name);
  return warnings.length === 0 ? verdict : decideHook({ ...input, warnings });
}

/** At most this many Warning Events of a namespace are read for one hook's poll. */
const EVENT_LIMIT = 500;

export interface PollResult {
  /** The inventory after the write; undefined when nothing was written. */
  readonly written: ReleaseInventory | undefined;
  /** Hooks that reached a terminal state in this pass (the "hook batch complete" edge). */
  readonly finished: readonly string[];
  readonly running: readonly string[];
  readonly polled: number;
}

export interface PollDeps {
  readonly target: () => Promise<KubeClient>;
  /** Where the inventory lives (the cluster convoy runs in). */
  readonly local: KubeClient;
  /** Namespace of hook workloads in the target cluster (render.targetNamespace, else the Release's). */
  readonly workloadNamespace: string;
  readonly now: () => Date;
  /** Where a polling error goes. */
  readonly log: Logger;
}

/**
 * Hooks of the inventory; writes only when a polled hook's status changed. A polling error is logged, not
 * returned: the hooks that were due are rechecked as Running ones. Only a 409 from the write is thrown
 * (the inventory changed since it was cached: the caller requeues).
 */
export async function pollHooks(
  inventory: ReleaseInventory | undefined,
  deps: PollDeps,
): Promise<PollResult> {
  try {
    return await pollDueHooks(inventory, deps);
  } catch (err) {
    if (isConflict(err)) throw err;
    deps.log.warn({ err: errorMessage(err) }, 'polling hooks failed');
    const running = (inventory?.hooks ?? []).filter(shouldPoll).map((h) => h.name);
    return { written: undefined, finished: [], running, polled: 0 };
  }
}

async function pollDueHooks(inventory: ReleaseInventory | undefined, deps: PollDeps): Promise<PollResult> {
  const hooks = inventory?.hooks ?? [];
  const due = hooks.filter(shouldPoll);
  const running = hooks.filter((h) => h.state === 'Running' && !due.includes(h)).map((h) => h.name);
  if (inventory === undefined || due.length === 0)
    return { written: undefined, finished: [], running, polled: 0 };
  const client = await deps.target();
  const now = deps.now();
  const verdicts = new Map<string, HookVerdict>();
  for (const h of due) verdicts.set(h.name, await pollHookWorkload(client, deps.workloadNamespace, h, now));
  const plan = planHookStatus(hooks, verdicts, now);
  const written = plan.changed ? await writeHookStatus(deps.local, inventory, plan.items) : undefined;
  return { written, finished: plan.finished, running: plan.running, polled: due.length };
}

/** SSA of every hook entry that has a state: name, state, reason, message, finishedAt. */
export async function writeHookStatus(
  client: KubeClient,
  inventory: ReleaseInventory,
  items: readonly HookStatusItem[],
): Promise<ReleaseInventory> {
  return applyInventoryFields(client, inventory, FIELD_MANAGERS.hookStatus, { hooks: items });
}
