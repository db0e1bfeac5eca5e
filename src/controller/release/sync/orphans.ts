// Crash-safety recovery. A controller killed between applying a wave and recording it leaves
// objects that carry the Release's label but no inventory entry. Every such orphan is either
// recorded (it is in the current render: its wave will be (re)applied and stamped with the
// render then) or deleted (it left the render and may be pruned); those that left the render
// but may not be pruned are left alone, exactly as if they had been recorded and forgotten.
import { ANNOTATION_HOOK, ANNOTATION_SYNC_WAVE, LABEL_RELEASE } from '../../../api/constants.ts';
import type { InventoryEntry, InventoryKey } from '../../../api/types.ts';
import { keyString, objectKey, parseWave } from '../../../render/keys.ts';
import type { Obj } from '../../../render/types.ts';
import { releaseLabelValue } from '../../../store/layout.ts';
import { entryKey, versionOf } from './inventory.ts';
import { type PruneOptions, pruneSet } from './prune.ts';

// `<namespace>.<name>`, hashed down to 63 characters when longer: one definition for the
// deployer's labels, the orphan scan and the render store (belongs in src/api eventually).
export { releaseLabelValue };

type LiveObj = Obj & {
  readonly metadata: Obj['metadata'] & {
    readonly ownerReferences?: readonly { readonly controller?: boolean }[];
  };
};

/** Type of the render store's Secrets (src/store), which carry the same release label. */
const RENDER_SECRET_TYPE = 'convoy.kumodo.io/render';

/**
 * Live objects labelled for this Release (`releaseLabel`) that the inventory does not hold.
 * Skipped even when labelled: hook workloads (tracked in inventory.hooks), the render store's
 * Secrets, and objects another controller owns (they copied the label from their owner and go
 * away with it).
 */
export function orphanedObjects(
  live: readonly LiveObj[],
  inventory: readonly InventoryKey[],
  releaseLabel: string,
): Obj[] {
  const known = new Set(inventory.map(entryKey));
  return live.filter(
    (o) =>
      o.metadata.labels?.[LABEL_RELEASE] === releaseLabel &&
      o.metadata.annotations?.[ANNOTATION_HOOK] === undefined &&
      !(o.kind === 'Secret' && o.type === RENDER_SECRET_TYPE) &&
      !(o.metadata.ownerReferences ?? []).some((r) => r.controller === true) &&
      !known.has(keyString(objectKey(o))),
  );
}

export type OrphanRecovery = {
  /** Entries to add (no renderRef: the render that applied them is not known). */
  readonly record: readonly InventoryEntry[];
  /** To delete, in prune order. */
  readonly toDelete: readonly InventoryEntry[];
  /** Left the render but may not be pruned: nothing to do. */
  readonly leave: readonly InventoryEntry[];
};

export function recoverOrphans(
  orphans: readonly Obj[],
  renderKeys: ReadonlySet<string>,
  options: Pick<PruneOptions, 'prune' | 'isPruneDisabled'>,
): OrphanRecovery {
  const entries = orphans.map(asEntry);
  const record = entries.filter((e) => renderKeys.has(entryKey(e)));
  const plan = pruneSet(entries, renderKeys, options);
  return { record, toDelete: plan.toDelete, leave: plan.toForget };
}

function asEntry(o: Obj): InventoryEntry {
  const value = o.metadata.annotations?.[ANNOTATION_SYNC_WAVE];
  const wave = value === undefined ? 0 : (parseWave(value) ?? 0);
  return { ...objectKey(o), version: versionOf(o.apiVersion), wave };
}
