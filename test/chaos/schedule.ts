// The chaos suite's fault schedule: which process is killed -9 (or kube-apiserver restarted) after how
// long, how long a killed process stays down and whether it comes back under a new Lease identity (a new
// pod) or its old one (a container restarted in place). Drawn from a seed with fast-check's generators
// (uniform: noBias), so a seed names one schedule and a failed run can be replayed with CHAOS_SEED.
import fc from 'fast-check';

export type Fault =
  | {
      readonly kind: 'kill';
      readonly target: 'controller-manager' | 'observer';
      /** Wait before the kill, counted from the end of the previous fault. */
      readonly gapMs: number;
      /** How long the process stays dead before it is started again. */
      readonly downMs: number;
      /** Restarted with a new --identity (a new pod) rather than its old one (a restarted container). */
      readonly newIdentity: boolean;
    }
  | { readonly kind: 'restart-apiserver'; readonly gapMs: number };

export interface ScheduleOptions {
  readonly seed: number;
  /** kill -9 of the controller-manager or the observer (which one: drawn). */
  readonly kills: number;
  readonly apiServerRestarts: number;
  readonly gapMs: readonly [min: number, max: number];
  readonly downMs: readonly [min: number, max: number];
}

const integerIn = ([min, max]: readonly [number, number]) => fc.integer({ min, max });

/**
 * The same options and seed always give the same schedule: the kills in a drawn order, each apiserver
 * restart k placed among the first half of the k-th of `apiServerRestarts` equal shares of the kills.
 */
export function faultSchedule(o: ScheduleOptions): readonly Fault[] {
  const kill = fc.record({
    kind: fc.constant('kill' as const),
    target: fc.constantFrom('controller-manager' as const, 'observer' as const),
    gapMs: integerIn(o.gapMs),
    downMs: integerIn(o.downMs),
    newIdentity: fc.boolean(),
  });
  const restart = fc.record({ kind: fc.constant('restart-apiserver' as const), gapMs: integerIn(o.gapMs) });
  // Each restart k goes into the first half of its share k of the kills (a drawn position there), not
  // anywhere in a shuffle: the drive often ends before the last faults of the schedule come (the
  // Releases converge first), and a shuffle that put the restarts last made runs with no restart at all.
  const slot = (k: number) => {
    const share = o.kills / o.apiServerRestarts;
    const from = Math.floor(k * share);
    return fc.integer({ min: from, max: from + Math.max(0, Math.floor(share / 2)) });
  };
  const all = fc
    .tuple(
      fc.array(kill, { minLength: o.kills, maxLength: o.kills }),
      fc.array(restart, { minLength: o.apiServerRestarts, maxLength: o.apiServerRestarts }),
      fc.tuple(...Array.from({ length: o.apiServerRestarts }, (_, k) => slot(k))),
    )
    .map(([kills, restarts, slots]) => {
      const faults: Fault[] = [];
      kills.forEach((f, i) => {
        restarts.forEach((r, k) => {
          if (slots[k] === i) faults.push(r);
        });
        faults.push(f);
      });
      restarts.forEach((r, k) => {
        if ((slots[k] ?? 0) >= kills.length) faults.push(r);
      });
      return faults;
    });
  const [schedule] = fc.sample(fc.noBias(all), { seed: o.seed, numRuns: 1 });
  if (schedule === undefined) throw new Error('fast-check drew no schedule');
  return schedule;
}

/** A kill -9 of Prometheus, on a timeline of its own beside the convoy faults. */
export interface PrometheusFault {
  /** Wait before the kill, counted from the previous restart. */
  readonly gapMs: number;
  /** How long Prometheus stays dead. */
  readonly downMs: number;
}

/**
 * The Prometheus kills of a run, drawn from the seed apart from faultSchedule (which stays as it was for
 * every seed): the same seed gives the same kills.
 */
export function prometheusSchedule(
  o: Pick<ScheduleOptions, 'seed' | 'gapMs' | 'downMs'> & { readonly kills: number },
): readonly PrometheusFault[] {
  const fault = fc.record({ gapMs: integerIn(o.gapMs), downMs: integerIn(o.downMs) });
  const all = fc.array(fault, { minLength: o.kills, maxLength: o.kills });
  const [schedule] = fc.sample(fc.noBias(all), { seed: o.seed + 1, numRuns: 1 });
  if (schedule === undefined) throw new Error('fast-check drew no Prometheus schedule');
  return schedule;
}

/** One line per fault, for the run's log. */
export function describeSchedule(s: readonly Fault[]): string {
  return s
    .map((f, i) =>
      f.kind === 'kill'
        ? `${i + 1}. +${f.gapMs} ms kill -9 ${f.target}, down ${f.downMs} ms, ${f.newIdentity ? 'new' : 'same'} identity`
        : `${i + 1}. +${f.gapMs} ms restart kube-apiserver`,
    )
    .join('\n');
}

/**
 * CHAOS_SEED when set (an integer), else `fallback`, else a fresh one: printed either way so a run can be
 * replayed.
 */
export function seedFrom(env: NodeJS.ProcessEnv, fallback?: number): number {
  const raw = env.CHAOS_SEED;
  if (raw === undefined || raw === '') return fallback ?? Math.floor(Math.random() * 2 ** 31);
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed))
    throw new Error(`CHAOS_SEED must be an integer, not ${JSON.stringify(raw)}`);
  return seed;
}
