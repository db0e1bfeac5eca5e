// groupWaves: the order stageSync applies a render's objects in. Waves ascend (negative ones
// first); inside a wave Namespaces and CRDs go before what lives in them, everything else keeps
// the render's canonical order. A CRD whose custom resources sit in an earlier wave than its own is
// applied in the earliest of those waves, so a CRD always comes before its custom resources (the
// deployer then waits for it to be Established before the rest of that wave).
import { kindRank } from '../../../../render/canonical.ts';
import { groupOf, waveOf } from '../../../../render/keys.ts';
import type { Obj } from '../../../../render/types.ts';

export type Wave = { readonly wave: number; readonly objects: readonly Obj[] };

/** The group and kind a CustomResourceDefinition serves; undefined for any other object. */
export function servedKind(obj: Obj): { readonly group: string; readonly kind: string } | undefined {
  if (groupOf(obj.apiVersion) !== 'apiextensions.k8s.io' || obj.kind !== 'CustomResourceDefinition')
    return undefined;
  const spec = (obj as { spec?: { group?: unknown; names?: { kind?: unknown } } }).spec;
  const group = spec?.group;
  const kind = spec?.names?.kind;
  return typeof group === 'string' && typeof kind === 'string' ? { group, kind } : undefined;
}

/** The wave each object is applied in: its own, or for a CRD the earliest wave of its custom resources. */
export function applyWaveOf(objects: readonly Obj[]): (obj: Obj) => number {
  const earliest = new Map<string, number>();
  for (const o of objects) {
    const k = `${groupOf(o.apiVersion)}/${o.kind}`;
    const w = waveOf(o);
    if ((earliest.get(k) ?? Number.POSITIVE_INFINITY) > w) earliest.set(k, w);
  }
  return (obj) => {
    const served = servedKind(obj);
    const own = waveOf(obj);
    if (served === undefined) return own;
    return Math.min(own, earliest.get(`${served.group}/${served.kind}`) ?? own);
  };
}

export function groupWaves(objects: readonly Obj[]): Wave[] {
  const waveFor = applyWaveOf(objects);
  const byWave = new Map<number, { obj: Obj; i: number }[]>();
  objects.forEach((obj, i) => {
    const w = waveFor(obj);
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
