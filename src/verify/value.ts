// How a measured value is written into status and messages: short (Measurement.value holds 256
// characters, numbers to six significant digits), Prometheus' spelling of the special values (NaN, +Inf, -Inf), lists bracketed.

const MAX_VALUE_CHARS = 256;

function one(v: unknown): string {
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (v === Number.POSITIVE_INFINITY) return '+Inf';
    if (v === Number.NEGATIVE_INFINITY) return '-Inf';
    // Six significant digits: a rate reads 0.0661113, not 0.06611126041386725.
    return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
  }
  return JSON.stringify(v) ?? String(v);
}

/** The value as shown (a number, a list of numbers, a JSON answer), at most 256 characters. */
export function formatValue(v: unknown): string {
  const s = Array.isArray(v) ? `[${v.map(one).join(', ')}]` : one(v);
  return s.length <= MAX_VALUE_CHARS ? s : `${s.slice(0, MAX_VALUE_CHARS - 1)}…`;
}
