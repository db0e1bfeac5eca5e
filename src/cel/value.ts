// Converts a Kubernetes object (JSON) into the CEL value bound to `object`, and any JSON value into a
// CEL value (a web check's `result`).
// Why: JSON numbers arrive as JS numbers, which CEL treats as double; Kubernetes' CEL sees
// integers as int, so `object.spec.replicas + 1 == 4` must work. Maps are used instead of plain
// objects so a key such as "__proto__" stays an ordinary key.

export interface CelObject {
  readonly value: Map<string, unknown>;
}

export function toCelObject(obj: object): CelObject {
  return { value: conv(obj) as Map<string, unknown> };
}

/** Any JSON value (a web check's answer: an object, a list, a string, a number…) as a CEL value. */
export function toCelValue(json: unknown): unknown {
  return conv(json);
}

// Runs once per judged object over the whole object, so it avoids per-key allocations
// (Object.keys instead of Object.entries): it is a visible share of the observer's CPU.
function conv(v: unknown): unknown {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : v;
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Date) return v.toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = conv(v[i]);
    return out;
  }
  const m = new Map<string, unknown>();
  const rec = v as Record<string, unknown>;
  const keys = Object.keys(rec);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const x = rec[k];
    if (x !== undefined) m.set(k, conv(x));
  }
  return m;
}
