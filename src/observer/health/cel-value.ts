// Converts a Kubernetes object (JSON) into the CEL value bound to `object`.
// Why: JSON numbers arrive as JS numbers, which CEL treats as double; Kubernetes' CEL sees
// integers as int, so `object.spec.replicas + 1 == 4` must work. Maps are used instead of plain
// objects so a key such as "__proto__" stays an ordinary key.

export interface CelObject {
  readonly value: Map<string, unknown>;
  /** Largest list or map in the object: the base of the evaluation cost estimate. */
  readonly maxCollection: number;
}

export function toCelObject(obj: object): CelObject {
  let maxCollection = 0;
  const conv = (v: unknown): unknown => {
    if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : v;
    if (v === null || typeof v !== 'object') return v;
    if (v instanceof Date) return v.toISOString().replace(/\.\d{3}Z$/, 'Z');
    if (Array.isArray(v)) {
      if (v.length > maxCollection) maxCollection = v.length;
      return v.map(conv);
    }
    const m = new Map<string, unknown>();
    for (const [k, x] of Object.entries(v)) if (x !== undefined) m.set(k, conv(x));
    if (m.size > maxCollection) maxCollection = m.size;
    return m;
  };
  return { value: conv(obj) as Map<string, unknown>, maxCollection };
}
