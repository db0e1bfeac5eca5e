// The two sizes of chaos run — `short` (part of npm test: a few minutes) and `full` (npm run chaos) — and
// the environment variables that override them: CHAOS_SEED, CHAOS_RELEASES, CHAOS_KILLS,
// CHAOS_APISERVER_RESTARTS, CHAOS_PROMETHEUS_KILLS (0: no Prometheus and no verification).

import { parseDuration } from '../../src/api/duration.ts';
import type { ChaosOptions } from './run.ts';
import { HEALTHY_DEADLINE } from './scenario.ts';
import { seedFrom } from './schedule.ts';

export type Preset = 'short' | 'full';

/** How long past the healthy deadline a step may still end: a controller restart and a requeue under load. */
const STEP_MARGIN_MS = 90_000;

/** The short run's schedule unless CHAOS_SEED says otherwise. */
const SHORT_SEED = 2;

const PRESETS: Record<
  Preset,
  Pick<ChaosOptions, 'releases' | 'kills' | 'apiServerRestarts' | 'prometheusKills' | 'gapMs' | 'staggerMs'>
> = {
  short: {
    releases: 12,
    kills: 3,
    apiServerRestarts: 1,
    prometheusKills: 0,
    gapMs: [5_000, 15_000],
    staggerMs: 1_000,
  },
  full: {
    releases: 24,
    kills: 12,
    apiServerRestarts: 3,
    prometheusKills: 6,
    gapMs: [3_000, 12_000],
    staggerMs: 2_500,
  },
};

function count(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new Error(`${name} must be a whole number, not ${JSON.stringify(raw)}`);
  return n;
}

export function chaosOptions(
  preset: Preset,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): ChaosOptions {
  const p = PRESETS[preset];
  return {
    ...p,
    // npm test runs one schedule every time; npm run chaos a new one each run.
    seed: seedFrom(env, preset === 'short' ? SHORT_SEED : undefined),
    releases: count(env, 'CHAOS_RELEASES', p.releases),
    kills: count(env, 'CHAOS_KILLS', p.kills),
    apiServerRestarts: count(env, 'CHAOS_APISERVER_RESTARTS', p.apiServerRestarts),
    prometheusKills: count(env, 'CHAOS_PROMETHEUS_KILLS', p.prometheusKills),
    downMs: [0, 4_000],
    // Down for up to two check intervals and more: a measurement or two meets a dead Prometheus.
    prometheusDownMs: [2_000, 8_000],
    scenario: { unhealthyDeadline: '20s', interval: '5s' },
    leaseDuration: '5s',
    // A step waits past the healthy renders' own deadline: until then a slow step is still within what
    // convoy promises (the render ends by its deadline, Succeeded or rolled back), and on two cores shared
    // with other test runs a killed process takes ~30 s to be up again, so a step that spans a few kills
    // took > 240 s (seed 8 at load 12: 19 of 24 drives gave up at 240 s while their rollouts went on).
    // Past the deadline and a restart's margin, a step that has not ended is a liveness failure.
    stepTimeoutMs: parseDuration(HEALTHY_DEADLINE) + STEP_MARGIN_MS,
    convergeTimeoutMs: 120_000,
    log,
  };
}
