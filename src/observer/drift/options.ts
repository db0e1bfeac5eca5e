// --drift-interval (env CONVOY_DRIFT_INTERVAL): how often the drift loop compares live objects with their
// renders. Taken off argv before the observer's own flag table sees it. Unset: each Release's
// syncPolicy.interval, else 5m; "0": the drift loop is not started; else at least 1s.
import { parseDuration } from '../../api/duration.ts';
import { FlagError } from '../../cmd/flags.ts';

export const DRIFT_INTERVAL_FLAG = 'drift-interval';
export const DRIFT_INTERVAL_ENV = 'CONVOY_DRIFT_INTERVAL';

export type DriftInterval =
  | { readonly kind: 'perRelease' }
  | { readonly kind: 'fixed'; readonly ms: number }
  | { readonly kind: 'off' };

export interface DriftFlag {
  /** argv without --drift-interval. */
  readonly rest: string[];
  readonly interval: DriftInterval;
}

export function takeDriftInterval(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): DriftFlag {
  const rest: string[] = [];
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === `--${DRIFT_INTERVAL_FLAG}`) {
      value = argv[++i];
      if (value === undefined) throw new FlagError(`--${DRIFT_INTERVAL_FLAG} needs a value (DURATION)`);
    } else if (arg.startsWith(`--${DRIFT_INTERVAL_FLAG}=`)) {
      value = arg.slice(DRIFT_INTERVAL_FLAG.length + 3);
    } else rest.push(arg);
  }
  const v = value ?? (env[DRIFT_INTERVAL_ENV] || undefined);
  if (v === undefined) return { rest, interval: { kind: 'perRelease' } };
  let ms: number;
  try {
    ms = parseDuration(v);
  } catch {
    throw new FlagError(
      `--${DRIFT_INTERVAL_FLAG} (${DRIFT_INTERVAL_ENV}): not a duration: ${JSON.stringify(v)}`,
    );
  }
  if (ms === 0) return { rest, interval: { kind: 'off' } };
  // Each pass reads every object of every Release: a sub-second loop would only load the API server.
  if (ms < 1000) throw new FlagError(`--${DRIFT_INTERVAL_FLAG} must be 0 (off) or at least 1s, got ${v}`);
  return { rest, interval: { kind: 'fixed', ms } };
}
