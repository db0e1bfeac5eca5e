// Edge triggers of one health pass (docs/design.md#controller-wake-ups): the observer sends
// POST /sync only when something changed in this pass, never on a steady pass.
import { entryKey, type InventoryEntry } from './types.ts';

/**
 * The frontier is the highest wave among entries of the newest render (lastAttempted's), not
 * among leftovers of an older render. True when every newest-render entry of that wave is Healthy
 * now and at least one of them was not Healthy for its render before this pass.
 */
export function frontierWaveCompleted(
  before: readonly InventoryEntry[],
  after: readonly InventoryEntry[],
  newestRenderRef: string | undefined,
): boolean {
  if (newestRenderRef === undefined) return false;
  const current = after.filter((e) => e.renderRef === newestRenderRef);
  if (current.length === 0) return false;
  const frontier = Math.max(...current.map((e) => e.wave));
  const wave = current.filter((e) => e.wave === frontier);
  if (!wave.every((e) => e.state === 'Healthy')) return false;
  const prior = new Map(before.map((e) => [entryKey(e), e]));
  return wave.some((e) => {
    const p = prior.get(entryKey(e));
    // Healthy for an older render does not count: the wave gate needs health for this render.
    return p?.state !== 'Healthy' || p.assessedRenderRef !== e.renderRef;
  });
}

/** Some entry (as read before this pass wrote) carries a render not yet assessed. */
export function renderAdvanced(before: readonly InventoryEntry[]): boolean {
  return before.some((e) => e.renderRef !== undefined && e.renderRef !== e.assessedRenderRef);
}
