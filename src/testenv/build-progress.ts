// What a first build prints while it runs: each step with its number, and every HEARTBEAT_MS a line
// saying the step still runs and for how long, so a 15-minute Kubernetes build never looks hung.
// Pure formatting plus one timer; build.ts decides what the steps are.

export const HEARTBEAT_MS = 30_000;

/** 75 s → "1m15s", 5 s → "5s", 3720 s → "1h2m". */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${m % 60}m`;
}

export interface StepClock {
  readonly name: string;
  readonly index: number;
  readonly total: number;
  readonly stepStarted: number;
  readonly buildStarted: number;
}

export function startLine(c: StepClock): string {
  return `testenv: [${c.index}/${c.total}] building ${c.name} …`;
}

export function heartbeatLine(c: StepClock, now: number): string {
  return `testenv: [${c.index}/${c.total}] still building ${c.name}: ${elapsed(now - c.stepStarted)} so far (${elapsed(now - c.buildStarted)} in all)`;
}

export function doneLine(c: StepClock, now: number): string {
  return `testenv: [${c.index}/${c.total}] built ${c.name} in ${elapsed(now - c.stepStarted)}`;
}

/** Runs `what`, logging a heartbeat line every `everyMs` until it settles. */
export async function withHeartbeat<T>(
  what: () => Promise<T>,
  beat: () => void,
  everyMs: number = HEARTBEAT_MS,
): Promise<T> {
  const timer = setInterval(beat, everyMs);
  try {
    return await what();
  } finally {
    clearInterval(timer);
  }
}
