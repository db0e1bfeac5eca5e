// Removing entries and hooks from a ReleaseInventory for good. A plain apply that leaves an entry out
// does not remove it while another manager (health, drift) still owns fields in it: the apiserver keeps
// the item with its keys and those fields. So the controller removes dropped items with a JSON patch:
// one `remove` per index, each guarded by `test` ops on the item's keys so a concurrent change of the
// list makes the patch fail (422) instead of removing the wrong item; the caller re-reads and retries.
import { API_VERSION, FIELD_MANAGERS } from '../api/constants.ts';
import type { InventoryHook, InventoryKey, ReleaseInventory } from '../api/types.ts';
import type { KubeClient } from './client.ts';
import { isKubeError } from './errors.ts';

export type JsonPatchOp =
  | { readonly op: 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string };

export function sameKey(a: InventoryKey, b: InventoryKey): boolean {
  return a.group === b.group && a.kind === b.kind && a.namespace === b.namespace && a.name === b.name;
}

/** The ops removing `keys` from entries and `hookNames` from hooks; [] when none of them is present. */
export function removalPatch(
  inventory: Pick<ReleaseInventory, 'entries' | 'hooks'>,
  keys: readonly InventoryKey[],
  hookNames: readonly string[] = [],
): JsonPatchOp[] {
  const ops: JsonPatchOp[] = [];
  const entries = inventory.entries ?? [];
  // highest index first, so each remove leaves the indices of the ones still to come unchanged
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e === undefined || !keys.some((k) => sameKey(k, e))) continue;
    for (const field of ['group', 'kind', 'namespace', 'name'] as const) {
      ops.push({ op: 'test', path: `/entries/${i}/${field}`, value: e[field] });
    }
    ops.push({ op: 'remove', path: `/entries/${i}` });
  }
  const hooks: readonly InventoryHook[] = inventory.hooks ?? [];
  for (let i = hooks.length - 1; i >= 0; i--) {
    const h = hooks[i];
    if (h === undefined || !hookNames.includes(h.name)) continue;
    ops.push({ op: 'test', path: `/hooks/${i}/name`, value: h.name });
    ops.push({ op: 'remove', path: `/hooks/${i}` });
  }
  return ops;
}

export interface RemoveResult {
  /** The inventory after the patch; undefined when it does not exist. */
  readonly inventory: ReleaseInventory | undefined;
  readonly removed: boolean;
}

/**
 * Removes inventory entries/hooks by key with a guarded JSON patch; re-reads and retries when the list
 * changed under it (a failed `test`). A missing inventory or absent keys are not errors.
 */
export async function removeInventoryItems(
  client: KubeClient,
  ref: { readonly namespace: string; readonly name: string },
  keys: readonly InventoryKey[],
  hookNames: readonly string[] = [],
  options: { readonly fieldManager?: string; readonly attempts?: number } = {},
): Promise<RemoveResult> {
  const target = { apiVersion: API_VERSION, kind: 'ReleaseInventory', ...ref };
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    const current = await client.get<ReleaseInventory>(target);
    if (current === undefined) return { inventory: undefined, removed: false };
    const ops = removalPatch(current, keys, hookNames);
    if (ops.length === 0) return { inventory: current, removed: false };
    try {
      const inventory = await client.request<ReleaseInventory>({
        method: 'PATCH',
        path: await client.pathOf(target),
        contentType: 'application/json-patch+json',
        body: ops,
        query: { fieldManager: options.fieldManager ?? FIELD_MANAGERS.controller },
      });
      return { inventory, removed: true };
    } catch (err) {
      // a failed test op (the list moved) is 422 Invalid; the object vanishing is 404
      if (isKubeError(err) && err.code === 404) return { inventory: undefined, removed: false };
      if (!(isKubeError(err) && err.code === 422) || attempt >= attempts) throw err;
    }
  }
}
