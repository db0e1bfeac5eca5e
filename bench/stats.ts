// The figures the timing benchmarks print from their runs: the median of the samples (the mean of the
// middle two for an even count) and a duration in seconds, so the scripts round alike.

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

/** Milliseconds as seconds with two decimals. */
export const secs = (ms: number): number => +(ms / 1000).toFixed(2);
