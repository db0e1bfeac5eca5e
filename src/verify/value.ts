// How a measured value is written into status and messages: short (Measurement.value holds 256
// characters), Prometheus' spelling of the special values (NaN, +Inf, -Inf), lists bracketed.

const MAX_VALUE_CHARS = 256;

function one(v: unknown): string {
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (v === Number.POSITIVE_INFINITY) return '+Inf';
    if (v === Number.NEGATIVE_INFINITY) return '-Inf';
    return String(v);
  }
  return JSON.stringify(v) ?? String(v);
}

/** The value as shown (a number, a list of numbers, a JSON answer), at most 256 characters. */
export function formatValue(v: unknown): string {
  const s = Array.isArray(v) ? `[${v.map(one).join(', ')}]` : one(v);
  return s.length <= MAX_VALUE_CHARS ? s : `${s.slice(0, MAX_VALUE_CHARS - 1)}…`;
}
