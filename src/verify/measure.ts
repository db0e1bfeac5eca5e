// One measurement of a Prometheus or web check: args and Secrets filled in (the caller read the
// Secrets of the Release's namespace), the provider called under its bounds, the result judged by the
// check's conditions. Never throws for a provider fault: that is a measurement in phase Error with a
// message that holds no secret value (docs/design.md#verification).
import { parseDuration } from '../api/duration.ts';
import { HEADER_VALUE_MAX, type Header, type VerificationSecretKey } from '../api/schema/verification.ts';
import { toCelValue } from '../cel/value.ts';
import { assertNever } from '../lib/assert-never.ts';
import { errorMessage } from '../lib/errors.ts';
import { untilAborted } from '../lib/until-aborted.ts';
import { type ArgValue, type ResolvedArgs, redactSecrets, substituteArgs } from './args.ts';
import { describeDecisive, judge } from './condition.ts';
import type { Measured } from './decide.ts';
import { type PrometheusAuth, type QueryOutcome, queryPrometheus } from './prometheus.ts';
import { headerValueOk, type ResolvedCheck } from './resolve.ts';
import { callKey, type SharedCalls } from './shared-calls.ts';
import { formatValue } from './value.ts';
import { callWeb } from './web.ts';

/** A key of a Secret in the Release's namespace; undefined when the Secret or the key is missing. */
export type SecretLookup = (ref: VerificationSecretKey) => string | undefined;

export interface MeasureDeps {
  /** Shared by every Release of the observer: identical queries within an interval are sent once. */
  readonly prometheusCalls?: SharedCalls<QueryOutcome>;
  readonly signal?: AbortSignal;
  /** Milliseconds clock for the measurement's time (default Date.now). */
  readonly now?: () => number;
}

class MissingSecret extends Error {}

function secretOf(secrets: SecretLookup, ref: VerificationSecretKey, what: string): string {
  const v = secrets(ref);
  if (v === undefined) throw new MissingSecret(`${what}: Secret ${ref.name} has no key ${ref.key}`);
  return v;
}

function argValues(check: ResolvedCheck, secrets: SecretLookup): ResolvedArgs {
  const out = new Map<string, ArgValue>();
  for (const a of check.args) {
    const ref = a.valueFrom?.secretKeyRef;
    out.set(
      a.name,
      ref !== undefined
        ? { value: secretOf(secrets, ref, `arg ${a.name}`), secret: true }
        : { value: a.value ?? '', secret: false },
    );
  }
  return out;
}

function fill(template: string, args: ResolvedArgs, field: string): string {
  const s = substituteArgs(template, args);
  if (!s.ok) throw new MissingSecret(`${field}: ${s.message}`);
  return s.text;
}

/** A check's headers, args and Secrets filled in; every Secret value used joins `hidden`. */
function headerValues(
  headers: readonly Header[] | undefined,
  args: ResolvedArgs,
  secrets: SecretLookup,
  hidden: string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of headers ?? []) {
    const ref = h.valueFrom?.secretKeyRef;
    const what = `header ${h.name}`;
    let v: string;
    if (ref !== undefined) {
      v = secretOf(secrets, ref, what);
      hidden.push(v);
    } else v = fill(h.value ?? '', args, what);
    if (v.length > HEADER_VALUE_MAX || !headerValueOk(v)) {
      const from = ref === undefined ? 'its value' : `the value of Secret ${ref.name} key ${ref.key}`;
      throw new MissingSecret(
        `${what}: ${from} is not a header value (at most ${HEADER_VALUE_MAX} printable ASCII characters)`,
      );
    }
    out[h.name] = v;
  }
  return out;
}

const timeoutMs = (t: string | undefined) => (t === undefined ? undefined : parseDuration(t));

/**
 * How long other Releases may reuse a query's answer: its interval less a second. A check's next
 * measurement is due an interval after the last one's time, and status times are whole seconds, so it can
 * come up to a second early; it must never be handed the answer its last measurement already counted.
 */
const sharedAnswerMs = (intervalMs: number) => Math.max(0, intervalMs - 1000);

type Raw =
  | { readonly ok: true; readonly value: unknown; readonly celValue: unknown }
  | { readonly ok: false; readonly message: string };

/** One measurement in progress: `hidden` collects every secret value used, kept out of messages. */
interface Measuring {
  readonly check: ResolvedCheck;
  readonly args: ResolvedArgs;
  readonly secrets: SecretLookup;
  readonly hidden: string[];
  readonly deps: MeasureDeps;
}

async function prometheusValue({ check, args, secrets, hidden, deps }: Measuring): Promise<Raw> {
  const p = check.spec.prometheus;
  if (p === undefined) return { ok: false, message: 'not a prometheus check' };
  let auth: PrometheusAuth | undefined;
  if (p.bearerTokenSecretRef) {
    auth = { kind: 'bearer', token: secretOf(secrets, p.bearerTokenSecretRef, 'bearerTokenSecretRef') };
  } else if (p.basicAuthSecretRef) {
    const name = p.basicAuthSecretRef.name;
    auth = {
      kind: 'basic',
      username: secretOf(secrets, { name, key: 'username' }, 'basicAuthSecretRef'),
      password: secretOf(secrets, { name, key: 'password' }, 'basicAuthSecretRef'),
    };
  }
  const caPem = p.caSecretRef ? secretOf(secrets, p.caSecretRef, 'caSecretRef') : undefined;
  const headers = headerValues(p.headers, args, secrets, hidden);
  const q = {
    address: fill(p.address, args, 'address'),
    query: fill(p.query, args, 'query'),
    ...(p.timeout !== undefined ? { timeoutMs: timeoutMs(p.timeout) as number } : {}),
    ...(auth !== undefined ? { auth } : {}),
    ...(caPem !== undefined ? { caPem } : {}),
    headers,
    secrets: hidden,
  };
  // Headers are part of the key: two tenants (X-Scope-OrgID) asking the same query never share an answer.
  const sent = Object.entries(headers).map(([k, v]) => `${k.toLowerCase()}: ${v}`);
  const key = callKey([q.address, q.query, auth ?? null, caPem ?? null, sent.sort()]);
  // A shared query is sent without this caller's signal (its own timeout bounds it): one Release's aborted
  // pass must not become the answer every Release on the query reads for an interval. This caller still
  // stops waiting at its abort (an Error measurement for it alone).
  const out = await (deps.prometheusCalls
    ? untilAborted(
        deps.prometheusCalls.run(key, sharedAnswerMs(check.plan.intervalMs), () => queryPrometheus(q)),
        deps.signal,
      )
    : queryPrometheus(q, deps.signal));
  return out.ok ? { ok: true, value: out.value, celValue: out.value } : out;
}

async function webValue({ check, args, secrets, hidden, deps }: Measuring): Promise<Raw> {
  const w = check.spec.web;
  if (w === undefined) return { ok: false, message: 'not a web check' };
  const headers = headerValues(w.headers, args, secrets, hidden);
  const out = await callWeb(
    {
      url: fill(w.url, args, 'url'),
      method: w.method ?? 'GET',
      headers,
      ...(w.body !== undefined ? { body: fill(w.body, args, 'body') } : {}),
      ...(w.jsonPath !== undefined ? { jsonPath: w.jsonPath } : {}),
      ...(w.timeout !== undefined ? { timeoutMs: timeoutMs(w.timeout) as number } : {}),
      ...(w.caSecretRef ? { caPem: secretOf(secrets, w.caSecretRef, 'caSecretRef') } : {}),
      secrets: hidden,
    },
    deps.signal,
  );
  return out.ok ? { ok: true, value: out.value, celValue: toCelValue(out.value) } : out;
}

/** Measures a Prometheus or web check once. A Job check is measured by its Job (jobMeasured). */
export async function measure(
  check: ResolvedCheck,
  secrets: SecretLookup,
  deps: MeasureDeps = {},
): Promise<Measured> {
  const now = deps.now ?? Date.now;
  const hidden: string[] = [];
  let raw: Raw;
  try {
    const args = argValues(check, secrets);
    for (const a of args.values()) if (a.secret) hidden.push(a.value);
    const m: Measuring = { check, args, secrets, hidden, deps };
    raw = check.spec.prometheus
      ? await prometheusValue(m)
      : check.spec.web
        ? await webValue(m)
        : { ok: false, message: 'a job check is measured by its Job' };
  } catch (e) {
    raw = { ok: false, message: redactSecrets(errorMessage(e), hidden) };
  }
  const atMs = now();
  if (!raw.ok) return { atMs, phase: 'Error', message: raw.message };
  const j = judge(check.conditions, raw.celValue);
  return {
    atMs,
    phase: j.phase,
    value: formatValue(raw.value),
    ...(j.decisive !== undefined
      ? { decided: describeDecisive(j.decisive), condition: j.decisive.source }
      : {}),
    ...(j.message !== undefined ? { message: j.message } : {}),
  };
}

/**
 * The measurement of a job check from how its Job ended: Complete is Successful, Failed is Failed; one
 * that did not finish (or was never created) within the check's timeout is an Error, which counts as
 * inconclusive and never rolls back.
 */
export function jobMeasured(
  atMs: number,
  outcome: 'succeeded' | 'failed' | 'timeout',
  why?: string,
): Measured {
  const because = why ? `: ${why}` : '';
  switch (outcome) {
    case 'succeeded':
      return { atMs, phase: 'Successful', decided: `the Job succeeded${because}` };
    case 'failed':
      return { atMs, phase: 'Failed', decided: `the Job failed${because}` };
    case 'timeout':
      return { atMs, phase: 'Error', message: `the Job did not finish${because}` };
    default:
      return assertNever(outcome);
  }
}
