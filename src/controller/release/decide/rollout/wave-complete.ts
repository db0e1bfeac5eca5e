// completeWaves: stamps status.waves[].completedAt once, when every object recorded in that wave for the
// wave's render is assessed Healthy for that render. The same array comes back when nothing changes, so a
// steady reconcile writes nothing; a wave that later turns unhealthy keeps its completedAt (it did
// complete, and stageSync uses the record to know the wave's gate was already passed).
import { entryWave, type InventoryEntry, type WaveStatus } from './types.ts';

export function completeWaves(
  waves: readonly WaveStatus[],
  entries: readonly InventoryEntry[],
  now: string,
): readonly WaveStatus[] {
  let changed = false;
  const out = waves.map((w) => {
    if (w.completedAt !== undefined) return w;
    const of = entries.filter((e) => entryWave(e) === w.wave && e.renderRef === w.renderRef);
    const done =
      of.length > 0 && of.every((e) => e.assessedRenderRef === w.renderRef && e.state === 'Healthy');
    if (!done) return w;
    changed = true;
    return { ...w, completedAt: now };
  });
  return changed ? out : waves;
}
