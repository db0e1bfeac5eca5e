// The pure decisions of verification (docs/design.md#verification): when a check's next measurement is
// due, what a measurement does to the check (counts, the newest MEASUREMENTS_KEPT kept, its phase and
// its one-line message) and the phase of the whole verification. No clock and no I/O: the observer
// passes `now` and the measurement it took.

import {
  type CheckStatus,
  MEASUREMENTS_KEPT,
  type Measurement,
  type MeasurementPhase,
  type VerificationPhase,
} from '../api/schema/verification.ts';
import { formatTime } from '../api/time.ts';
import { assertNever } from '../lib/assert-never.ts';

/** One check as the decisions need it: resolved from the spec (defaults applied, durations in ms). */
export interface CheckPlan {
  readonly name: string;
  readonly provider: 'prometheus' | 'web' | 'job';
  /** What is asked, as shown (a query or a URL, secret args as placeholders). */
  readonly shown?: string;
  readonly intervalMs: number;
  /** Measurements to take at least; unset: one per interval until the soak ends. */
  readonly count?: number;
  readonly failureLimit: number;
  readonly inconclusiveLimit: number;
}

/** The soak of the render: it starts when every object is Healthy. */
export interface Soak {
  readonly startedAtMs: number;
  readonly soakMs: number;
}

/** One measurement as the observer took it. */
export interface Measured {
  readonly atMs: number;
  readonly phase: MeasurementPhase;
  /** The result, formatted (src/verify/value.ts). */
  readonly value?: string;
  /** The condition that decided, described ("met failureCondition `result[0] > 0.01`"). */
  readonly decided?: string;
  /** The condition source that decided, for CheckStatus.condition. */
  readonly condition?: string;
  /** Why Error or Inconclusive. */
  readonly message?: string;
}

const MAX_SHOWN_CHARS = 160;
const MAX_MESSAGE_CHARS = 4096;

const shorten = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

export function newCheckStatus(plan: CheckPlan): CheckStatus {
  return {
    name: plan.name,
    phase: 'Running',
    provider: plan.provider,
    ...(plan.shown !== undefined ? { query: shorten(plan.shown, 4096) } : {}),
    successful: 0,
    failed: 0,
    inconclusive: 0,
  };
}

/** Passed and Failed end a check; an Inconclusive one keeps measuring, and a conclusive result resumes it. */
const isFinal = (p: VerificationPhase) => p === 'Passed' || p === 'Failed';

/** Inconclusive and Error measurements at the end of the kept ones, in a row. */
function trailingInconclusive(status: CheckStatus): number {
  const ms = status.measurements ?? [];
  let n = 0;
  for (let i = ms.length - 1; i >= 0; i--) {
    const p = ms[i]?.phase;
    if (p !== 'Inconclusive' && p !== 'Error') break;
    n++;
  }
  return n;
}

/**
 * The check's phase: failures past failureLimit first, then inconclusive measurements in a row past
 * inconclusiveLimit, then the soak and count. Only conclusive measurements count towards Passed, and the
 * newest must be one: a provider that was down for the whole of a short soak, its errors within
 * inconclusiveLimit, has measured nothing, so the check keeps measuring until a conclusive answer or
 * the limit decides.
 */
export function checkPhase(
  plan: CheckPlan,
  status: CheckStatus,
  soak: Soak,
  nowMs: number,
): VerificationPhase {
  if (status.failed > plan.failureLimit) return 'Failed';
  // In a row: a provider that comes back resumes the soak (docs/design.md#verification).
  if (trailingInconclusive(status) > Math.min(plan.inconclusiveLimit, MEASUREMENTS_KEPT - 1))
    return 'Inconclusive';
  const soaked = nowMs >= soak.startedAtMs + soak.soakMs;
  const conclusive = status.successful + status.failed;
  return soaked && conclusive >= (plan.count ?? 1) && trailingInconclusive(status) === 0
    ? 'Passed'
    : 'Running';
}

/**
 * When the next measurement is due: at the soak's start for the first, an interval after the last
 * one for the next; undefined once the check is final.
 */
export function nextMeasurementAt(plan: CheckPlan, status: CheckStatus, soak: Soak): number | undefined {
  if (isFinal(status.phase)) return undefined;
  const last = status.measurements?.at(-1);
  if (last === undefined) return soak.startedAtMs;
  const lastMs = Date.parse(last.at);
  return Math.max(soak.startedAtMs, (Number.isNaN(lastMs) ? soak.startedAtMs : lastMs) + plan.intervalMs);
}

export function measurementDue(plan: CheckPlan, status: CheckStatus, soak: Soak, nowMs: number): boolean {
  const next = nextMeasurementAt(plan, status, soak);
  return next !== undefined && nowMs >= next;
}

/** The check's one-line message for a measurement: names the check, the value, the condition and the query. */
export function measurementLine(plan: CheckPlan, m: Measured): string {
  const at = formatTime(m.atMs).slice(11, 19);
  const what =
    plan.shown !== undefined
      ? ` (${plan.provider === 'web' ? 'url' : 'query'}: ${shorten(plan.shown, MAX_SHOWN_CHARS)})`
      : '';
  const value = m.value !== undefined ? `${m.value} ` : '';
  const why = m.decided ?? m.message ?? m.phase.toLowerCase();
  return shorten(`${plan.name}: ${value}${why} at ${at}${what}`, MAX_MESSAGE_CHARS);
}

function counted(status: CheckStatus, phase: MeasurementPhase): CheckStatus {
  switch (phase) {
    case 'Successful':
      return { ...status, successful: status.successful + 1 };
    case 'Failed':
      return { ...status, failed: status.failed + 1 };
    case 'Inconclusive':
    case 'Error':
      return { ...status, inconclusive: status.inconclusive + 1 };
    default:
      return assertNever(phase);
  }
}

/**
 * The check after `measured` (when one was taken) at `nowMs`: counted, appended (the newest
 * MEASUREMENTS_KEPT kept), its phase decided. A final check does not change. The message is the line of
 * the measurement that decided a final phase, else of the newest measurement.
 */
export function advanceCheck(
  plan: CheckPlan,
  status: CheckStatus | undefined,
  soak: Soak,
  nowMs: number,
  measured?: Measured,
): CheckStatus {
  const before = status ?? newCheckStatus(plan);
  if (isFinal(before.phase)) return before;
  let next = before;
  if (measured !== undefined) {
    const m: Measurement = {
      at: formatTime(measured.atMs),
      phase: measured.phase,
      ...(measured.value !== undefined ? { value: shorten(measured.value, 256) } : {}),
      ...(measured.decided !== undefined || measured.message !== undefined
        ? { message: shorten((measured.decided ?? measured.message) as string, 1024) }
        : {}),
    };
    next = {
      ...counted(before, measured.phase),
      measurements: [...(before.measurements ?? []), m].slice(-MEASUREMENTS_KEPT),
      message: measurementLine(plan, measured),
      ...(measured.condition !== undefined ? { condition: shorten(measured.condition, 4096) } : {}),
    };
  }
  const phase = checkPhase(plan, next, soak, nowMs);
  return phase === next.phase ? next : { ...next, phase };
}

export interface VerificationVerdict {
  readonly phase: VerificationPhase;
  readonly reason: 'Verifying' | 'VerificationPassed' | 'VerificationFailed' | 'VerificationInconclusive';
  readonly message: string;
}

/** Over all checks: any Failed → Failed, else any Inconclusive → Inconclusive, else all Passed → Passed. */
export function verificationPhase(checks: readonly CheckStatus[]): VerificationVerdict {
  const failed = checks.find((c) => c.phase === 'Failed');
  if (failed) {
    return {
      phase: 'Failed',
      reason: 'VerificationFailed',
      message: failed.message ?? `${failed.name} failed`,
    };
  }
  const inconclusive = checks.find((c) => c.phase === 'Inconclusive');
  if (inconclusive) {
    return {
      phase: 'Inconclusive',
      reason: 'VerificationInconclusive',
      message: inconclusive.message ?? `${inconclusive.name} is inconclusive`,
    };
  }
  const passed = checks.filter((c) => c.phase === 'Passed').length;
  if (passed === checks.length) {
    return {
      phase: 'Passed',
      reason: 'VerificationPassed',
      message: `${passed} of ${checks.length} checks passed`,
    };
  }
  const running = checks.filter((c) => c.phase === 'Running').map((c) => c.name);
  return {
    phase: 'Running',
    reason: 'Verifying',
    message: `${passed} of ${checks.length} checks passed; running: ${running.join(', ')}`,
  };
}
