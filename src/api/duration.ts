// Go duration strings ("1h30m", "300ms", "0") as used in convoy's API fields, converted to milliseconds.
// The CRD schemas validate the same syntax with DURATION_PATTERN, so a stored value always parses.

/** What the CRDs accept: non-negative, a unit on every number, "0" alone. */
export const DURATION_PATTERN = '^(0|([0-9]+(\\.[0-9]+)?(ns|us|µs|μs|ms|s|m|h))+)$';

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu: Go accepts both
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

export class DurationError extends Error {
  override readonly name = 'DurationError';
}

// µ and μ escaped: a regex literal keeps its characters, and one outside Latin-1 makes V8 hold a bundle's
// whole source as a two-byte string (docs/design.md#process-bundles).
const TERM = /^([0-9]*(?:\.[0-9]*)?)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/;

/** Parses a Go duration string into milliseconds (fractions below 1 ms are kept). Throws DurationError. */
export function parseDuration(s: string): number {
  let rest = s;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw new DurationError(`invalid duration ${JSON.stringify(s)}`);
  let total = 0;
  while (rest !== '') {
    const m = TERM.exec(rest);
    const num = m?.[1];
    const unit = m?.[2];
    if (m === null || num === undefined || unit === undefined || num === '' || num === '.') {
      throw new DurationError(
        `invalid duration ${JSON.stringify(s)}: want numbers with units ns, us, ms, s, m, h, e.g. "1h30m"`,
      );
    }
    total += Number(num) * (UNIT_MS[unit] ?? 0);
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}

/** parseDuration for optional fields: undefined stays undefined. */
export function parseOptionalDuration(s: string | undefined): number | undefined {
  return s === undefined ? undefined : parseDuration(s);
}
