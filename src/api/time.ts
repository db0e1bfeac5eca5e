// The API's times as convoy writes them: RFC 3339 in whole seconds, UTC, as Kubernetes writes
// metav1.Time, so a value read back from the API server compares equal to the one written, and a write
// whose only change would be a fraction of a second is not a change.

/** `at` (epoch milliseconds or a Date) as metav1.Time: "2030-01-01T00:00:00Z", the fraction dropped. */
export function formatTime(at: number | Date): string {
  return `${new Date(at).toISOString().slice(0, 19)}Z`;
}
