// groupWaves: the order stageSync applies a render's objects in. Waves ascend (negative ones
// first); inside a wave Namespaces and CRDs go before what lives in them, everything else keeps
// the render's canonical order.
import { kindRank } from '../../../render/canonical.ts';
import { waveOf } from '../../../render/keys.ts';
import type { Obj } from '../../../render/types.ts';

export type Wave = { readonly wave: number; readonly objects: readonly Obj[] };

export function groupWaves(objects: readonly Obj[]): Wave[] {
  const byWave = new Map<number, { obj: Obj; i: number }[]>();
  objects.forEach((obj, i) => {
    const w = waveOf(obj);
    const list = byWave.get(w);
    if (list === undefined) byWave.set(w, [{ obj, i }]);
    else list.push({ obj, i });
  });
  return [...byWave.entries()]
    .sort(([a], [b]) => a - b)
    .map(([wave, list]) => ({
      wave,
      objects: list.sort((a, b) => kindRank(a.obj) - kindRank(b.obj) || a.i - b.i).map((x) => x.obj),
    }));
}
