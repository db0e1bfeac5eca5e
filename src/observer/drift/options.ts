// --drift-interval (env CONVOY_DRIFT_INTERVAL), parsed: how often the drift loop compares live objects
// with their renders. Unset: each Release's syncPolicy.interval, else 5m; "0": the drift loop is not
// started; else at least 1s.
import { parseDuration } from '../../api/duration.ts';

export type DriftInterval =
  | { readonly kind: 'perRelease' }
  | { readonly kind: 'fixed'; readonly ms: number }
  | { readonly kind: 'off' };

/** The interval, or a message saying what is wrong with the value (the caller names the flag). */
export function parseDriftInterval(value: string | undefined): DriftInterval | { readonly error: string } {
  if (value === undefined || value === '') return { kind: 'perRelease' };
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch {
    return { error: `not a duration: ${JSON.stringify(value)}` };
  }
  if (ms === 0) return { kind: 'off' };
  // Each pass reads every object of every Release: a sub-second loop would only load the API server.
  if (ms < 1000) return { error: `must be 0 (off) or at least 1s, got ${value}` };
  return { kind: 'fixed', ms };
}
