// What the traffic simulator (traffic-sim.ts) is told to do, read from a ConfigMap's data: pure, so the
// rules (a missing ConfigMap or key means no errors and the default latency; a bad value is an error
// naming the field, never a guess) are a table test.

export interface TrafficSettings {
  /** Share of requests answered with code 500, 0 to 1. */
  readonly errorRate: number;
  /** What every simulated request takes, in ms. */
  readonly latencyMs: number;
}

export const DEFAULT_TRAFFIC: TrafficSettings = { errorRate: 0, latencyMs: 20 };

/** A latency above this is a typo, not a simulation (the histogram's last bucket is 10 s). */
export const MAX_LATENCY_MS = 60_000;

export type SettingsRead =
  | { readonly kind: 'ok'; readonly settings: TrafficSettings }
  | { readonly kind: 'invalid'; readonly field: 'errorRate' | 'latencyMs'; readonly message: string };

/** The settings a ConfigMap's `data` (undefined: no ConfigMap) asks for. */
export function readTrafficSettings(data: Readonly<Record<string, string>> | undefined): SettingsRead {
  const errorRate = parseField(data, 'errorRate', DEFAULT_TRAFFIC.errorRate, 1);
  if (errorRate.kind === 'invalid') return errorRate;
  const latencyMs = parseField(data, 'latencyMs', DEFAULT_TRAFFIC.latencyMs, MAX_LATENCY_MS);
  if (latencyMs.kind === 'invalid') return latencyMs;
  return { kind: 'ok', settings: { errorRate: errorRate.value, latencyMs: latencyMs.value } };
}

/** In-process settings are checked by the same rules. */
export function checkTrafficSettings(s: TrafficSettings): SettingsRead {
  return readTrafficSettings({ errorRate: String(s.errorRate), latencyMs: String(s.latencyMs) });
}

function parseField(
  data: Readonly<Record<string, string>> | undefined,
  field: 'errorRate' | 'latencyMs',
  fallback: number,
  max: number,
): { readonly kind: 'value'; readonly value: number } | Extract<SettingsRead, { kind: 'invalid' }> {
  const text = data?.[field];
  if (text === undefined) return { kind: 'value', value: fallback };
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (trimmed === '' || !Number.isFinite(value) || value < 0 || value > max) {
    const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
    return {
      kind: 'invalid',
      field,
      message: `${field} ${JSON.stringify(shown)} is not a number from 0 to ${max}`,
    };
  }
  return { kind: 'value', value };
}
