// The figures the benchmarks print from their runs: the median of the samples (the mean of the
// middle two for an even count), nearest-rank percentiles and a duration in seconds, so the scripts
// round alike.

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

/** Milliseconds as seconds with two decimals. */
export const secs = (ms: number): number => +(ms / 1000).toFixed(2);

/** The nearest-rank percentile (0 < p ≤ 1) of the samples; NaN for none. */
export function percentile(xs: readonly number[], p: number): number {
  if (!(p > 0 && p <= 1)) throw new RangeError(`percentile: p must be in (0, 1], got ${p}`);
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.ceil(p * s.length) - 1] as number;
}

/** p50, p95 and max of the samples, and how many there were. */
export const spread = (xs: readonly number[]) => ({
  n: xs.length,
  p50: percentile(xs, 0.5),
  p95: percentile(xs, 0.95),
  max: xs.length === 0 ? Number.NaN : Math.max(...xs),
});
