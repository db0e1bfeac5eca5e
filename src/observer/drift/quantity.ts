// Kubernetes resource quantities as exact rationals, so "1000m" and "1", "0.5" and "500m", "1024Mi" and
// "1Gi" compare equal: the API server stores quantities in canonical form, which is rarely the form a
// manifest spells. Exact (bigint) because two different quantities must never round to the same number.

/** value = num / den, den > 0. */
export interface Quantity {
  readonly num: bigint;
  readonly den: bigint;
}

const PATTERN =
  /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/;

const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

/** undefined when `v` is not a quantity (a number counts, as the API server accepts one). */
export function parseQuantity(v: unknown): Quantity | undefined {
  const s = typeof v === 'number' && Number.isFinite(v) ? String(v) : v;
  if (typeof s !== 'string') return undefined;
  const m = PATTERN.exec(s.trim());
  if (m === null) return undefined;
  const [, sign = '', digits = '', suffix = ''] = m;
  const [whole = '', frac = ''] = digits.split('.');
  let num = BigInt(`${whole || '0'}${frac}`);
  let den = 10n ** BigInt(frac.length);
  if (sign === '-') num = -num;
  let exp10 = 0;
  if (suffix in BINARY) num *= 2n ** BigInt(BINARY[suffix] as number);
  else if (suffix in DECIMAL) exp10 = DECIMAL[suffix] as number;
  else if (suffix !== '') exp10 = Number(suffix.slice(1));
  // A huge exponent is not a quantity anyone wrote on purpose; refuse rather than allocate a giant bigint.
  if (!Number.isSafeInteger(exp10) || Math.abs(exp10) > 64) return undefined;
  if (exp10 > 0) num *= 10n ** BigInt(exp10);
  else if (exp10 < 0) den *= 10n ** BigInt(-exp10);
  return { num, den };
}

export function sameQuantity(a: Quantity, b: Quantity): boolean {
  return a.num * b.den === b.num * a.den;
}
