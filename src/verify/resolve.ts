// From a Release's spec.verification (and the Argo Rollouts templates it names, read as they are) to
// the checks the observer measures: template metrics become checks, the Release's args fill and
// override the templates', every `{{args.<name>}}` is declared, every condition and jsonPath compiles.
// Done once per spec; a refusal names the check (or template, metric) and the field
// (docs/design.md#verification).
import { parseDuration } from '../api/duration.ts';
import {
  HEADER_NAME,
  HEADER_VALUE_MAX,
  type Header,
  type JobCheck,
  MAX_HEADERS,
  type VerificationArg,
  type VerificationCheck,
  type VerificationSecretKey,
  type VerificationSpec,
} from '../api/schema/verification.ts';
import { checkArgNames, readAnalysisTemplate } from './argo/template.ts';
import { type ArgValue, substituteArgs } from './args.ts';
import { type Conditions, compileConditions } from './condition.ts';
import type { CheckPlan } from './decide.ts';
import { jobSpecProblem } from './job.ts';
import { parseJsonPath } from './json-path.ts';

export const DEFAULT_INTERVAL_MS = 30_000;

export interface ResolvedCheck {
  readonly spec: VerificationCheck;
  readonly plan: CheckPlan;
  readonly conditions: Conditions;
  /** The template it came from ("AnalysisTemplate success-rate"); unset for spec.checks. */
  readonly template?: string;
  /** The args it may use, merged (the Release's over the template's). */
  readonly args: readonly VerificationArg[];
}

export type ResolveOutcome =
  | { readonly ok: true; readonly checks: readonly ResolvedCheck[] }
  | { readonly ok: false; readonly field: string; readonly message: string };

class Refusal extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

function ms(field: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  try {
    const n = parseDuration(value);
    if (n > 0) return n;
  } catch {
    // Reported below with the field.
  }
  throw new Refusal(field, `${field}: ${JSON.stringify(value)} is not a duration greater than 0`);
}

/** Headers the HTTP call sets itself: a check may not send them too. */
const CALL_HEADERS = ['host', 'content-length', 'transfer-encoding', 'connection'];
const headerName = new RegExp(HEADER_NAME);

/**
 * The bounds the CRD sets on headers, again for template metrics (which never met the CRD), and the
 * names a check may not set: those of the call itself, and for a Prometheus query its content type and,
 * with bearer or basic auth, Authorization.
 */
function checkHeaders(check: VerificationCheck, field: string): void {
  const p = check.prometheus;
  const headers: readonly Header[] = p?.headers ?? check.web?.headers ?? [];
  const at = `${field}.${p !== undefined ? 'prometheus' : 'web'}.headers`;
  if (headers.length > MAX_HEADERS)
    throw new Refusal(at, `check ${check.name}: ${headers.length} headers; at most ${MAX_HEADERS}`);
  const taken = [...CALL_HEADERS];
  if (p !== undefined) taken.push('content-type');
  if (p?.bearerTokenSecretRef !== undefined || p?.basicAuthSecretRef !== undefined)
    taken.push('authorization');
  const seen = new Set<string>();
  for (const h of headers) {
    const name = h.name.toLowerCase();
    const refuse = (why: string) => {
      throw new Refusal(
        `${at}[${headers.indexOf(h)}]`,
        `check ${check.name}: header ${h.name.slice(0, 64)} ${why}`,
      );
    };
    if (!headerName.test(h.name) || h.name.length > 256) refuse('is not a header name');
    if (taken.includes(name)) refuse('is set by convoy for this check');
    if (seen.has(name)) refuse('is named twice');
    seen.add(name);
    if ((h.value === undefined) === (h.valueFrom === undefined))
      refuse('needs value or valueFrom, one of them');
    if (h.value !== undefined && (h.value.length > HEADER_VALUE_MAX || !headerValueOk(h.value)))
      refuse(`value must be at most ${HEADER_VALUE_MAX} printable ASCII characters`);
  }
}

/** Text a header can carry: printable ASCII and tabs (no line break, so no header of one's own). */
export function headerValueOk(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c > 0x7e) return false;
  }
  return true;
}

/** Args with placeholders for every value not known before measuring (Secrets). */
function shownArgs(args: readonly VerificationArg[]): Map<string, ArgValue> {
  return new Map(args.map((a) => [a.name, { value: a.value ?? '', secret: a.value === undefined }]));
}

/** What a check asks, as shown: its query or URL with secret args as placeholders. */
function shown(check: VerificationCheck, args: readonly VerificationArg[]): string | undefined {
  const text = check.prometheus?.query ?? check.web?.url;
  if (text === undefined) return undefined;
  const s = substituteArgs(text, shownArgs(args));
  return s.ok ? s.shown.trim() : text;
}

function resolveOne(
  check: VerificationCheck,
  args: readonly VerificationArg[],
  intervalMs: number,
  where: string,
  template?: string,
): ResolvedCheck {
  const field = `${where}`;
  const declared = new Set(args.map((a) => a.name));
  const missing = checkArgNames(check).filter((n) => !declared.has(n));
  if (missing.length > 0) throw new Refusal(field, `check ${check.name}: unknown arg ${missing.join(', ')}`);
  checkHeaders(check, field);
  const c = compileConditions(check.name, check);
  if (!c.ok) throw new Refusal(`${field}.${c.field}`, c.message);
  if (check.web?.jsonPath !== undefined) {
    const p = parseJsonPath(check.web.jsonPath);
    if (!p.ok) throw new Refusal(`${field}.web.jsonPath`, `check ${check.name}: ${p.message}`);
  }
  if (check.job !== undefined) refuseJob(check, check.job, args, field);
  const provider = check.prometheus ? 'prometheus' : check.web ? 'web' : check.job ? 'job' : undefined;
  if (provider === undefined)
    throw new Refusal(field, `check ${check.name}: set one provider: prometheus, web or job`);
  const s = shown(check, args);
  return {
    spec: check,
    plan: {
      name: check.name,
      provider,
      ...(s !== undefined ? { shown: s } : {}),
      intervalMs: ms(`${field}.interval`, check.interval, intervalMs),
      ...(check.count !== undefined ? { count: check.count } : {}),
      failureLimit: check.failureLimit ?? 0,
      inconclusiveLimit: check.inconclusiveLimit ?? 0,
    },
    conditions: c.conditions,
    ...(template !== undefined ? { template } : {}),
    args,
  };
}

/**
 * A job check's Job must be one the API server takes (shape, size), judged by how it ends (no
 * conditions), with plain args only: a Secret's value filled into the Job would be stored in its spec
 * and in the inventory; the Job reads a Secret itself (env valueFrom).
 */
function refuseJob(
  check: VerificationCheck,
  job: JobCheck,
  args: readonly VerificationArg[],
  field: string,
): void {
  const problem = jobSpecProblem(job);
  if (problem !== undefined)
    throw new Refusal(
      `${field}.${problem.field}`,
      `check ${check.name}: ${problem.field} ${problem.message}`,
    );
  if (check.successCondition !== undefined || check.failureCondition !== undefined) {
    throw new Refusal(
      field,
      `check ${check.name}: a job check is judged by how its Job ends; remove successCondition and failureCondition`,
    );
  }
  const secret = new Set(args.filter((a) => a.valueFrom !== undefined).map((a) => a.name));
  const used = checkArgNames(check).filter((n) => secret.has(n));
  if (used.length > 0) {
    throw new Refusal(
      `${field}.job`,
      `check ${check.name}: arg ${used.join(', ')} comes from a Secret; a Job reads a Secret through its own env valueFrom`,
    );
  }
  ms(`${field}.job.timeout`, job.timeout, 1);
}

/** The template's args with the Release's over them; one with no value from either is refused. */
function mergeArgs(
  template: string,
  templateArgs: readonly VerificationArg[],
  releaseArgs: readonly VerificationArg[],
): VerificationArg[] {
  const given = new Map(releaseArgs.map((a) => [a.name, a]));
  const merged = templateArgs.map((a) => given.get(a.name) ?? a);
  for (const a of merged) {
    if (a.value === undefined && a.valueFrom === undefined) {
      throw new Refusal(
        'spec.verification.args',
        `${template}: arg ${a.name} has no value; set it in spec.verification.args`,
      );
    }
  }
  return merged;
}

/**
 * The checks of `spec`. `templates` holds the objects named by spec.templateRefs, in the same order
 * (the caller reads them: an AnalysisTemplate in the Release's namespace, a ClusterAnalysisTemplate).
 */
export function resolveChecks(spec: VerificationSpec, templates: readonly unknown[] = []): ResolveOutcome {
  try {
    const intervalMs = ms('spec.verification.interval', spec.interval, DEFAULT_INTERVAL_MS);
    ms('spec.verification.soak', spec.soak, 0);
    const releaseArgs = spec.args ?? [];
    const checks: ResolvedCheck[] = (spec.checks ?? []).map((c, i) =>
      resolveOne(c, releaseArgs, intervalMs, `spec.verification.checks[${i}]`),
    );
    const refs = spec.templateRefs ?? [];
    if (templates.length !== refs.length) {
      throw new Refusal(
        'spec.verification.templateRefs',
        `want ${refs.length} templates, got ${templates.length}`,
      );
    }
    for (const [i, ref] of refs.entries()) {
      const field = `spec.verification.templateRefs[${i}]`;
      const read = readAnalysisTemplate(templates[i]);
      if (!read.ok) throw new Refusal(field, read.message);
      const want = `${ref.clusterScope === true ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate'} ${ref.name}`;
      if (read.template !== want) throw new Refusal(field, `want ${want}, got ${read.template}`);
      const args = mergeArgs(read.template, read.args, releaseArgs);
      for (const c of read.checks)
        checks.push(
          resolveOne(c, args, intervalMs, `${field} (${read.template}, metric ${c.name})`, read.template),
        );
    }
    const seen = new Set<string>();
    for (const c of checks) {
      if (seen.has(c.spec.name)) {
        throw new Refusal(
          'spec.verification',
          `check ${c.spec.name} is named twice (a check and a template metric?)`,
        );
      }
      seen.add(c.spec.name);
    }
    return { ok: true, checks };
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, field: e.field, message: e.message };
    throw e;
  }
}

/** Every Secret key a check reads (args, credentials, CA, headers): all in the Release's namespace. */
export function secretRefs(check: ResolvedCheck): readonly VerificationSecretKey[] {
  const p = check.spec.prometheus;
  const w = check.spec.web;
  const refs: (VerificationSecretKey | undefined)[] = [
    ...check.args.map((a) => a.valueFrom?.secretKeyRef),
    p?.bearerTokenSecretRef,
    ...(p?.basicAuthSecretRef
      ? [
          { name: p.basicAuthSecretRef.name, key: 'username' },
          { name: p.basicAuthSecretRef.name, key: 'password' },
        ]
      : []),
    p?.caSecretRef,
    w?.caSecretRef,
    ...(p?.headers ?? w?.headers ?? []).map((h) => h.valueFrom?.secretKeyRef),
  ];
  const out = new Map<string, VerificationSecretKey>();
  for (const r of refs) if (r !== undefined) out.set(`${r.name}/${r.key}`, r);
  return [...out.values()];
}
