// Delete policies: which hook workloads go, and when. BeforeHookCreation (the default) removes the
// previous workload of a hook just before a new arming creates the next one, so a finished workload stays
// around for its logs until then; HookSucceeded / HookFailed remove it as soon as the observer reports
// that outcome. Also what a deletion leaves behind, and the entries of hooks that left the render.
import type { InventoryHook } from '../../../../api/types.ts';
import { assertNever } from '../../../../lib/assert-never.ts';
import type { HookDef, HookKind } from './defs.ts';

/** A hook workload in the target cluster; namespace undefined: the Release's default namespace. */
export interface HookWorkloadRef {
  readonly kind: HookKind;
  readonly namespace: string | undefined;
  readonly name: string;
}

/**
 * - beforeCreation: a new arming of `hook` is about to create its workload; `entry` is the arming it replaces.
 * - finished: `entry` is the hook's current arming and the observer reported its outcome.
 */
export type CleanupMoment = 'beforeCreation' | 'finished';

/**
 * The workloads `entry` leaves to delete at `moment`, by `hook`'s delete policies ([] or one ref).
 *
 * The workload's namespace is the one the entry recorded; entries armed before the namespace was recorded
 * fall back to the hook's namespace in the current render.
 */
export function workloadsToDelete(
  entry: InventoryHook,
  hook: HookDef,
  moment: CleanupMoment,
): HookWorkloadRef[] {
  const ref = workloadOf(entry, hook.namespace);
  if (ref === undefined) return [];
  const policies = hook.deletePolicies;
  switch (moment) {
    case 'beforeCreation':
      return policies.includes('BeforeHookCreation') ? [ref] : [];
    case 'finished': {
      const wanted =
        (entry.state === 'Succeeded' && policies.includes('HookSucceeded')) ||
        (entry.state === 'Failed' && policies.includes('HookFailed'));
      return wanted ? [ref] : [];
    }
    default:
      return assertNever(moment);
  }
}

/** The workload an entry recorded (in its recorded namespace, else `namespace`); undefined when it recorded none. */
export function workloadOf(entry: InventoryHook, namespace: string | undefined): HookWorkloadRef | undefined {
  if (entry.workloadName === undefined || entry.workloadName === '' || entry.kind === undefined)
    return undefined;
  const ns = entry.namespace !== undefined && entry.namespace !== '' ? entry.namespace : namespace;
  return { kind: entry.kind, namespace: ns, name: entry.workloadName };
}

/**
 * Every workload the inventory records, for the end of a deletion (deletionPolicy Delete) — whatever
 * their policy, since nothing will look at them once the Release is gone. Namespace from the render's
 * hook of the same name when there is one.
 */
export function recordedWorkloads(
  entries: readonly InventoryHook[],
  hooks: readonly HookDef[],
): HookWorkloadRef[] {
  const nsByName = new Map(hooks.map((h) => [h.name, h.namespace]));
  return entries.flatMap((e) => {
    const ref = workloadOf(e, nsByName.get(e.name));
    return ref === undefined ? [] : [ref];
  });
}

/**
 * Entries of hooks the render no longer has: they leave the inventory (explicit removal patch, by name)
 * and their workloads are deleted, like objects that leave the render. Called with prune, after the
 * last wave. A later render that brings the name back arms it afresh.
 */
export function departedHooks(
  entries: readonly InventoryHook[],
  hooks: readonly HookDef[],
): { readonly names: readonly string[]; readonly workloads: readonly HookWorkloadRef[] } {
  const present = new Set(hooks.map((h) => h.name));
  const gone = entries.filter((e) => !present.has(e.name));
  return {
    names: gone.map((e) => e.name),
    workloads: gone.flatMap((e) => {
      const ref = workloadOf(e, undefined);
      return ref === undefined ? [] : [ref];
    }),
  };
}
