// What a Release page shows of the verification of its rollout's render (spec.verification, measured by
// the observer): the inventory's `verification` only when its renderRef is status.rollout's (an older
// render's numbers never judge this one), each check's measurements as numbers a chart can draw, the
// threshold when the condition is a plain comparison of result[0] with a number, and the sentence that
// names a failure ("error-rate 0.072 > 0.01"). Pure: the browser only lays it out and counts the soak
// down.
import { parseOptionalDuration } from '../api/duration.ts';
import type {
  CheckStatus,
  Measurement,
  MeasurementPhase,
  VerificationPhase,
} from '../api/schema/verification.ts';
import type { Release, ReleaseInventory } from '../api/types.ts';
import { freshVerification } from '../api/verification.ts';

export type Comparison = '<' | '<=' | '>' | '>=' | '==' | '!=';

/** `result[0] <op> <number>` (or the number first): a line a chart can draw. */
export interface Threshold {
  readonly op: Comparison;
  readonly value: number;
  /** successCondition: a measurement on the right side of the line passes; failureCondition: it fails. */
  readonly meaning: 'success' | 'failure';
}

export interface MeasurementView {
  readonly at: string;
  readonly phase: MeasurementPhase;
  readonly value?: string;
  /** The value as a number (its first, for a vector); undefined when it has none (an error, no data). */
  readonly number?: number;
  readonly message?: string;
}

export interface CheckView {
  readonly name: string;
  readonly phase: VerificationPhase;
  readonly provider?: string;
  readonly query?: string;
  readonly condition?: string;
  readonly threshold?: Threshold;
  readonly successful: number;
  readonly failed: number;
  readonly inconclusive: number;
  readonly message?: string;
  /** Oldest first. */
  readonly measurements: readonly MeasurementView[];
}

export interface VerificationView {
  readonly renderRef: string;
  readonly phase: VerificationPhase;
  readonly reason?: string;
  readonly message?: string;
  readonly startedAt: string;
  readonly finishedAt?: string;
  /** spec.verification.soak in ms, and when the soak ends (startedAt + soak); unknown without a valid soak. */
  readonly soakMs?: number;
  readonly soakEndsAt?: string;
  readonly checks: readonly CheckView[];
  /** The measurement that failed the verification, in words: "error-rate 0.072 > 0.01". */
  readonly failure?: { readonly check: string; readonly text: string; readonly at: string };
}

const OPS: readonly Comparison[] = ['<=', '>=', '==', '!=', '<', '>'];
const FLIP: Readonly<Record<Comparison, Comparison>> = {
  '<': '>',
  '<=': '>=',
  '>': '<',
  '>=': '<=',
  '==': '==',
  '!=': '!=',
};
const NOT: Readonly<Record<Comparison, Comparison>> = {
  '<': '>=',
  '<=': '>',
  '>': '<=',
  '>=': '<',
  '==': '!=',
  '!=': '==',
};
const NUMBER = '[-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?';
const OP = OPS.map((o) => o.replace(/[=<>!]/g, (c) => `\\${c}`)).join('|');
const RESULT = 'result\\[0\\]';
const RESULT_FIRST = new RegExp(`^\\s*${RESULT}\\s*(${OP})\\s*(${NUMBER})\\s*$`);
const NUMBER_FIRST = new RegExp(`^\\s*(${NUMBER})\\s*(${OP})\\s*${RESULT}\\s*$`);

/** The comparison of `result[0] <op> n` (or `n <op> result[0]`); undefined for any other condition. */
export function parseThreshold(
  condition: string,
): { readonly op: Comparison; readonly value: number } | undefined {
  if (condition.length > 256) return undefined;
  const a = RESULT_FIRST.exec(condition);
  if (a !== null) return { op: a[1] as Comparison, value: Number(a[2]) };
  const b = NUMBER_FIRST.exec(condition);
  if (b !== null) return { op: FLIP[b[2] as Comparison], value: Number(b[1]) };
  return undefined;
}

const FIRST_NUMBER = new RegExp(NUMBER);

/** A measured value as a number: "0.072", "[0.072]" or "[0.072, 0.1]" → 0.072; none for "NaN" or text. */
export function numberOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = FIRST_NUMBER.exec(value.slice(0, 256));
  const n = m === null ? Number.NaN : Number(m[0]);
  return Number.isFinite(n) ? n : undefined;
}

type SpecCheck = NonNullable<NonNullable<Release['spec']['verification']>['checks']>[number];

/**
 * The threshold of a check: its status's condition (the one that decided), read as the failure or the
 * success condition it is in the spec; a condition the spec does not name (an AnalysisTemplate's) is
 * taken as a failure condition only when the spec has no success condition for it.
 */
function thresholdOf(c: CheckStatus, spec: SpecCheck | undefined): Threshold | undefined {
  const condition = c.condition ?? spec?.failureCondition ?? spec?.successCondition;
  if (condition === undefined) return undefined;
  const t = parseThreshold(condition);
  if (t === undefined) return undefined;
  const meaning = spec?.successCondition === condition ? 'success' : 'failure';
  return { ...t, meaning };
}

const trim = (n: number): string => String(Number(n.toPrecision(6)));

/** "error-rate 0.072 > 0.01": the failing measurement against the line it crossed, else its condition. */
function failureText(c: CheckView, m: MeasurementView): string {
  const value = m.value ?? 'no value';
  const t = c.threshold;
  if (t !== undefined && m.number !== undefined) {
    const op = t.meaning === 'failure' ? t.op : NOT[t.op];
    return `${c.name} ${trim(m.number)} ${op} ${trim(t.value)}`;
  }
  const why = c.condition === undefined ? '' : ` (${c.condition})`;
  return `${c.name} ${value}${why}${m.message === undefined ? '' : `: ${m.message}`}`;
}

const measurementView = (m: Measurement): MeasurementView => {
  const n = numberOf(m.value);
  return {
    at: m.at,
    phase: m.phase,
    ...(m.value === undefined ? {} : { value: m.value }),
    ...(n === undefined ? {} : { number: n }),
    ...(m.message === undefined ? {} : { message: m.message }),
  };
};

function soakOf(r: Release): number | undefined {
  try {
    return parseOptionalDuration(r.spec.verification?.soak);
  } catch {
    // An invalid soak is the controller's InvalidSpec to report; the page shows no end rather than a made-up one.
    return undefined;
  }
}

/** The verification of status.rollout's render, as the page shows it; undefined when there is none. */
export function verificationView(
  r: Release,
  inv: ReleaseInventory | undefined,
): VerificationView | undefined {
  const rollout = r.status?.rollout;
  if (rollout === undefined) return undefined;
  // Only this attempt of the rollout's render (docs/design.md#verification).
  const v = freshVerification(inv?.verification, rollout.renderRef, rollout.startedAt);
  if (v === undefined) return undefined;
  const specChecks = r.spec.verification?.checks ?? [];
  const checks: CheckView[] = (v.checks ?? []).map((c) => {
    const threshold = thresholdOf(
      c,
      specChecks.find((s) => s.name === c.name),
    );
    const measurements = [...(c.measurements ?? [])]
      .sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
      .map(measurementView);
    return {
      name: c.name,
      phase: c.phase,
      ...(c.provider === undefined ? {} : { provider: c.provider }),
      ...(c.query === undefined ? {} : { query: c.query }),
      ...(c.condition === undefined ? {} : { condition: c.condition }),
      ...(threshold === undefined ? {} : { threshold }),
      successful: c.successful,
      failed: c.failed,
      inconclusive: c.inconclusive,
      ...(c.message === undefined ? {} : { message: c.message }),
      measurements,
    };
  });
  const soakMs = soakOf(r);
  const started = Date.parse(v.startedAt);
  const soakEndsAt =
    soakMs === undefined || Number.isNaN(started) ? undefined : new Date(started + soakMs).toISOString();
  const failed = v.phase === 'Failed' ? checks.find((c) => c.phase === 'Failed') : undefined;
  const failedAt = failed?.measurements.findLast((m) => m.phase === 'Failed');
  return {
    renderRef: v.renderRef,
    phase: v.phase,
    ...(v.reason === undefined ? {} : { reason: v.reason }),
    ...(v.message === undefined ? {} : { message: v.message }),
    startedAt: v.startedAt,
    ...(v.finishedAt === undefined ? {} : { finishedAt: v.finishedAt }),
    ...(soakMs === undefined ? {} : { soakMs }),
    ...(soakEndsAt === undefined ? {} : { soakEndsAt }),
    checks,
    ...(failed === undefined || failedAt === undefined
      ? {}
      : { failure: { check: failed.name, text: failureText(failed, failedAt), at: failedAt.at } }),
  };
}
