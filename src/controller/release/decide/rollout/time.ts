// Conversion between the API's RFC 3339 times and the epoch milliseconds the decisions compute with,
// and durations for human messages. Times are written at second precision, as Kubernetes writes
// metav1.Time, so a value read back from the API server compares equal to the one written.

export { formatTime } from '../../../../api/time.ts';

/** now − t in ms, or undefined when t is absent or unparsable (treated as "not set"). */
export function elapsedSince(t: string | undefined, now: number): number | undefined {
  if (t === undefined) return undefined;
  const at = Date.parse(t);
  return Number.isNaN(at) ? undefined : now - at;
}

/** Go-style duration for messages, whole seconds: "0s", "45s", "2m30s", "1h0m5s". */
export function formatDuration(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  let s = Math.floor(Math.abs(ms) / 1000);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}
