// Whether the inventory shows render R applied in full: every object of R recorded with renderRef R,
// nothing left pending by an interrupted sync, no leftover of an earlier render still to prune, and (with
// selfHeal) no drift to heal. upToDate and the PostSync hold read it (docs/design.md#hooks): a sync of R
// that holds for its PostSync hooks, or for health before them, has nothing left to apply, and applying its
// waves again on every reconcile would rewrite the inventory the observer records hook results and health
// in, over and over.
import type { InventoryKey, ReleaseInventory } from '../../../../api/types.ts';
import { entryKey } from './inventory.ts';

export interface RenderAppliedInput {
  readonly renderRef: string;
  /** The keys of every object of R (not its hooks). */
  readonly objects: readonly InventoryKey[];
  readonly inventory: ReleaseInventory | undefined;
  /** spec.syncPolicy.selfHeal is true: a drifted entry is work to do. */
  readonly selfHeal: boolean;
}

export function renderApplied(input: RenderAppliedInput): boolean {
  const { inventory, renderRef: R } = input;
  if ((inventory?.pending ?? []).length > 0) return false;
  const entries = inventory?.entries ?? [];
  const byKey = new Map(entries.map((e) => [entryKey(e), e]));
  const keys = new Set(input.objects.map(entryKey));
  if (input.objects.some((o) => byKey.get(entryKey(o))?.renderRef !== R)) return false;
  // leftovers of an earlier render still recorded: a prune is due
  if (entries.some((e) => !keys.has(entryKey(e)) && (e.renderRef !== undefined || e.wave !== undefined)))
    return false;
  return !(input.selfHeal && entries.some((e) => e.drifted === true));
}
