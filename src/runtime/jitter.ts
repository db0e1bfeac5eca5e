// Jitter and capped exponential backoff, shared by the queue and by controllers
// (progressBackoff in the observer builds on jittered()).

/** A random source in [0, 1), injectable for deterministic tests. */
export type Random = () => number;

/** ms plus a random extra of 0..fraction*ms (never less than ms, so a delay stays a lower bound). */
export function jittered(ms: number, fraction: number, random: Random = Math.random): number {
  if (ms <= 0 || fraction <= 0) return Math.max(0, ms);
  return ms + ms * fraction * random();
}

/** Delay after the n-th consecutive failure (n >= 1): base * 2^(n-1), capped. */
export function exponentialBackoff(failures: number, baseMs: number, capMs: number): number {
  if (failures <= 0) return 0;
  // 2^(n-1) overflows to Infinity for large n; Math.min keeps the cap.
  return Math.min(capMs, baseMs * 2 ** (failures - 1));
}
