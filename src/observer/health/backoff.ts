// progressBackoff and scheduleHealthRecheck (docs/design.md#re-check-backoff), and the attempt counts it
// keeps per Release: in memory only, so a restart starts every target at 2 s again.

export const defaultMaxDelayMs = 32_000;
const maxJitter = 0.2;

/** The cap: syncPolicy.interval when set (> 0), else 32 s. It bounds the delay with its jitter. */
export function recheckCapMs(intervalMs: number | undefined): number {
  return intervalMs !== undefined && intervalMs > 0 ? intervalMs : defaultMaxDelayMs;
}

/** attempt n (1, 2, …) → 2ⁿ s plus 0–20 % jitter, capped. `random` returns [0, 1). */
export function progressBackoff(
  attempt: number,
  intervalMs: number | undefined,
  random: () => number,
): number {
  const n = Math.max(1, Math.floor(attempt));
  const base = 2 ** n * 1000;
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.min(base * (1 + maxJitter * r), recheckCapMs(intervalMs));
}

export interface RecheckPlan {
  /** New attempt counts: pending targets incremented, every other target dropped. */
  readonly counts: ReadonlyMap<string, number>;
  /** Requeue delay in ms; undefined: no timed pass (events and informer resync only). */
  readonly delayMs: number | undefined;
}

/**
 * Pending targets: every object not Healthy, every Running hook, and `render-pending` while
 * the condition is Pending. The next pass uses the shortest delay among them, so a new
 * pending target brings the delay back to 2 s.
 */
export function scheduleHealthRecheck(
  prior: ReadonlyMap<string, number>,
  pending: readonly string[],
  intervalMs: number | undefined,
  random: () => number,
): RecheckPlan {
  const counts = new Map<string, number>();
  for (const id of pending) counts.set(id, (prior.get(id) ?? 0) + 1);
  if (counts.size === 0) {
    return { counts, delayMs: intervalMs !== undefined && intervalMs > 0 ? intervalMs : undefined };
  }
  // Why: the smallest count gives the shortest delay; one jitter draw per pass is enough.
  const fewest = Math.min(...counts.values());
  return { counts, delayMs: progressBackoff(fewest, intervalMs, random) };
}

/**
 * The attempt counts of each Release's pending targets, in this process's memory only: a restarted
 * observer starts with none, so every target starts at 2 s again.
 */
export class RecheckAttempts {
  readonly #counts = new Map<string, ReadonlyMap<string, number>>();

  /** scheduleHealthRecheck for Release `key` over its counts, keeping the new ones; the delay it chose. */
  next(
    key: string,
    pending: readonly string[],
    intervalMs: number | undefined,
    random: () => number,
  ): number | undefined {
    const plan = scheduleHealthRecheck(this.#counts.get(key) ?? new Map(), pending, intervalMs, random);
    if (plan.counts.size === 0) this.#counts.delete(key);
    else this.#counts.set(key, plan.counts);
    return plan.delayMs;
  }

  forget(key: string): void {
    this.#counts.delete(key);
  }
}
