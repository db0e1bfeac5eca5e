// Event filters of the verification loop (docs/design.md#verification): which updates add a Release's key.
// The loop needs the rollout's render and clock, the end of its sync, and the health of its entries; its
// own writes change the verification's phase at most, which wakes it once more to no effect.
import { healthChanged } from '../../api/health-wake.ts';
import type { Release, ReleaseInventory } from '../../api/types.ts';

/** Release: generation, the rollout's render, state or clock, the last successful sync, or deletion changed. */
export function releaseUpdateMatters(o: Release, n: Release): boolean {
  if (o.metadata.generation !== n.metadata.generation) return true;
  const a = o.status?.rollout;
  const b = n.status?.rollout;
  if (a?.renderRef !== b?.renderRef || a?.state !== b?.state || a?.startedAt !== b?.startedAt) return true;
  if (o.status?.lastSuccessful?.renderRef !== n.status?.lastSuccessful?.renderRef) return true;
  return o.metadata.deletionTimestamp === undefined && n.metadata.deletionTimestamp !== undefined;
}

/** ReleaseInventory: an entry's health, the entry count, the pending notes or the verification changed. */
export function inventoryUpdateMatters(o: ReleaseInventory, n: ReleaseInventory): boolean {
  return healthChanged(o, n) || (o.pending?.length ?? 0) !== (n.pending?.length ?? 0);
}
