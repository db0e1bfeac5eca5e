// Converts a Kubernetes object (JSON) into the CEL value bound to `object`.
// Why: JSON numbers arrive as JS numbers, which CEL treats as double; Kubernetes' CEL sees
// integers as int, so `object.spec.replicas + 1 == 4` must work. Maps are used instead of plain
// objects so a key such as "__proto__" stays an ordinary key.

export interface CelObject {
  readonly value: Map<string, unknown>;
}

export function toCelObject(obj: object): CelObject {
  const conv = (v: unknown): unknown => {
    if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : v;
    if (v === null || typeof v !== 'object') return v;
    if (v instanceof Date) return v.toISOString().replace(/\.\d{3}Z$/, 'Z');
    if (Array.isArray(v)) return v.map(conv);
    const m = new Map<string, unknown>();
    for (const [k, x] of Object.entries(v)) if (x !== undefined) m.set(k, conv(x));
    return m;
  };
  return { value: conv(obj) as Map<string, unknown> };
}
