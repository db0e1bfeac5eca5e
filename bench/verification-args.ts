// The pure parts of bench:verification (bench/verification.ts): its command line, checked with a clear
// error for a bad value, and the lag it measures per Release — from the end of a soak (the verification's
// startedAt + initialDelay + soak, docs/design.md#verification) to the rollout's Succeeded.
import { parseArgs } from 'node:util';

export interface VerificationBenchArgs {
  /** Releases, each with the two shared Prometheus checks. */
  readonly releases: number;
  readonly soakSeconds: number;
  readonly intervalSeconds: number;
  readonly initialDelaySeconds: number;
  /** Seconds of the idle window without verification (the baseline). */
  readonly idleSeconds: number;
  /** A third check per Release whose query names it: the cost of queries that cannot be shared. */
  readonly perReleaseQuery: boolean;
}

export const USAGE =
  'npm run bench:verification -- [--releases N] [--soak S] [--interval S] [--initial-delay S] [--idle S] [--per-release-query]';

const whole = (name: string, text: string | undefined, fallback: number, min: number): number => {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min) {
    throw new Error(`--${name}: want a whole number ≥ ${min}, got "${text}"\nusage: ${USAGE}`);
  }
  return n;
};

export function parseVerificationArgs(argv: readonly string[]): VerificationBenchArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        releases: { type: 'string' },
        soak: { type: 'string' },
        interval: { type: 'string' },
        'initial-delay': { type: 'string' },
        idle: { type: 'string' },
        'per-release-query': { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new Error(`${(err as Error).message}\nusage: ${USAGE}`);
  }
  const text = (k: string) => values[k] as string | undefined;
  const args = {
    releases: whole('releases', text('releases'), 1000, 1),
    soakSeconds: whole('soak', text('soak'), 120, 1),
    intervalSeconds: whole('interval', text('interval'), 30, 1),
    initialDelaySeconds: whole('initial-delay', text('initial-delay'), 0, 0),
    idleSeconds: whole('idle', text('idle'), 60, 1),
    perReleaseQuery: values['per-release-query'] === true,
  };
  if (args.intervalSeconds > args.soakSeconds) {
    throw new Error(
      `--interval ${args.intervalSeconds} is longer than --soak ${args.soakSeconds}: the soak would measure once\nusage: ${USAGE}`,
    );
  }
  return args;
}

/**
 * Milliseconds from the end of a Release's soak to its rollout's Succeeded: `doneAtMs` minus the
 * verification's startedAt (RFC 3339) + initialDelay + soak. Negative when Succeeded came first.
 */
export function soakEndLagMs(
  startedAt: string,
  initialDelayMs: number,
  soakMs: number,
  doneAtMs: number,
): number {
  const start = Date.parse(startedAt);
  if (Number.isNaN(start)) throw new Error(`verification.startedAt "${startedAt}" is not a time`);
  return doneAtMs - (start + initialDelayMs + soakMs);
}
