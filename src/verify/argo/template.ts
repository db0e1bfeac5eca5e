// Argo Rollouts AnalysisTemplate / ClusterAnalysisTemplate objects (argoproj.io/v1alpha1), read as they
// are into convoy's checks and args: the prometheus, web and job providers and the metric fields that
// mean the same in convoy. Anything else (another provider, a range query, OAuth2, a field convoy has no
// meaning for, a condition outside the translated subset) is refused with an error naming the template,
// the metric and the field: never guessed (docs/design.md#verification).
import { parseDuration } from '../../api/duration.ts';
import {
  type JobCheck,
  MAX_HEADERS,
  type PrometheusCheck,
  type VerificationArg,
  type VerificationCheck,
  type WebCheck,
} from '../../api/schema/verification.ts';
import { errorMessage } from '../../lib/errors.ts';
import { argNames } from '../args.ts';
import { jobStrings } from '../job.ts';
import { ExprTranslateError, exprToCel } from './expr.ts';

export const ARGO_API_VERSION = 'argoproj.io/v1alpha1';
export const TEMPLATE_KINDS = ['AnalysisTemplate', 'ClusterAnalysisTemplate'] as const;

export interface TemplateChecks {
  /** "AnalysisTemplate success-rate": how messages name the template. */
  readonly template: string;
  readonly checks: readonly VerificationCheck[];
  /** The template's args; one without value or valueFrom must come from the Release. */
  readonly args: readonly VerificationArg[];
}

export type ReadTemplateOutcome =
  | ({ readonly ok: true } & TemplateChecks)
  | { readonly ok: false; readonly message: string };

/** A refusal; `field` is the path inside the metric (or the template) that is not translated. */
class Refused extends Error {}

type Obj = Readonly<Record<string, unknown>>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const CHECK_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const MAX_TIMEOUT_S = 60;

/** Said after a condition that is not translated. */
export const TRANSLATED =
  '(convoy translates comparisons, arithmetic, and/or/not, len, isNaN, isInf, asInt, asFloat, all, any, default, result[i] and fields)';

/** Refuses any key of `o` (at `path`) outside `known`. */
function onlyKnown(o: Obj, path: string, known: readonly string[], why = 'is not translated'): void {
  for (const k of Object.keys(o)) {
    if (!known.includes(k)) throw new Refused(`${path}${path ? '.' : ''}${k} ${why}`);
  }
}

function str(o: Obj, key: string, path: string, required = false): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) {
    if (required) throw new Refused(`${path}.${key} is required`);
    return undefined;
  }
  if (typeof v !== 'string') throw new Refused(`${path}.${key} must be a string`);
  return v;
}

/** An int-or-string count or limit; args in it are not translated. */
function intField(o: Obj, key: string, min: number, max: number): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Refused(`${key} ${JSON.stringify(v)}: want an integer from ${min} to ${max}`);
  }
  return n;
}

function duration(o: Obj, key: string): string | undefined {
  const v = str(o, key, '');
  if (v === undefined) return undefined;
  let ms: number;
  try {
    ms = parseDuration(v);
  } catch (e) {
    throw new Refused(`${key}: ${errorMessage(e)}`);
  }
  if (!(ms > 0)) throw new Refused(`${key} ${JSON.stringify(v)}: want a duration greater than 0`);
  return v;
}

/** A timeout in seconds (Argo's unit) as a convoy duration. */
function timeoutSeconds(v: unknown, field: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_TIMEOUT_S) {
    throw new Refused(`${field} ${JSON.stringify(v)}: want whole seconds from 1 to ${MAX_TIMEOUT_S}`);
  }
  return `${v}s`;
}

function condition(m: Obj, field: 'successCondition' | 'failureCondition'): string | undefined {
  const source = str(m, field, '');
  if (source === undefined) return undefined;
  try {
    return exprToCel(source);
  } catch (e) {
    if (e instanceof ExprTranslateError) {
      throw new Refused(`${field} ${JSON.stringify(source)}: ${e.message} ${TRANSLATED}`);
    }
    throw e;
  }
}

function headerList(v: unknown, path: string): { key: string; value: string }[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new Refused(`${path} must be a list`);
  if (v.length > MAX_HEADERS) throw new Refused(`${path}: ${v.length} headers; at most ${MAX_HEADERS}`);
  return v.map((h, i) => {
    if (!isObj(h) || typeof h.key !== 'string' || typeof h.value !== 'string') {
      throw new Refused(`${path}[${i}] must have a key and a value`);
    }
    onlyKnown(h, `${path}[${i}]`, ['key', 'value']);
    return { key: h.key, value: h.value };
  });
}

function prometheus(p: Obj): PrometheusCheck {
  const path = 'provider.prometheus';
  onlyKnown(p, path, ['address', 'query', 'timeout', 'headers']);
  const address = str(p, 'address', path, true) as string;
  const query = str(p, 'query', path, true) as string;
  const timeout = timeoutSeconds(p.timeout, `${path}.timeout`);
  // Sent as they are, args filled in: a bearer token from a Secret-valued arg stays a secret.
  const headers = headerList(p.headers, `${path}.headers`).map((h) => ({ name: h.key, value: h.value }));
  return {
    address,
    query,
    ...(timeout !== undefined ? { timeout } : {}),
    ...(headers.length > 0 ? { headers } : {}),
  };
}

function web(w: Obj): WebCheck {
  const path = 'provider.web';
  onlyKnown(w, path, ['url', 'method', 'headers', 'body', 'jsonBody', 'jsonPath', 'timeoutSeconds']);
  const url = str(w, 'url', path, true) as string;
  const method = str(w, 'method', path) ?? 'GET';
  if (method !== 'GET' && method !== 'POST' && method !== 'PUT') {
    throw new Refused(`${path}.method ${JSON.stringify(method)}: want GET, POST or PUT`);
  }
  const headers = headerList(w.headers, `${path}.headers`).map((h) => ({ name: h.key, value: h.value }));
  if (w.body !== undefined && w.jsonBody !== undefined)
    throw new Refused(`${path}: set body or jsonBody, not both`);
  let body = str(w, 'body', path);
  if (w.jsonBody !== undefined) {
    body = JSON.stringify(w.jsonBody);
    if (!headers.some((h) => h.name.toLowerCase() === 'content-type')) {
      headers.push({ name: 'Content-Type', value: 'application/json' });
    }
  }
  if (body !== undefined && method === 'GET') throw new Refused(`${path}: a GET request takes no body`);
  const jsonPath = str(w, 'jsonPath', path);
  const timeout = timeoutSeconds(w.timeoutSeconds, `${path}.timeoutSeconds`);
  return {
    url,
    method,
    ...(headers.length > 0 ? { headers } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(jsonPath !== undefined ? { jsonPath } : {}),
    ...(timeout !== undefined ? { timeout } : {}),
  };
}

/** provider.job: Argo Rollouts' JobMetric, its labels, annotations and JobSpec. */
function job(j: Obj): JobCheck {
  const path = 'provider.job';
  onlyKnown(j, path, ['metadata', 'spec']);
  if (!isObj(j.spec)) throw new Refused(`${path}.spec is required`);
  let metadata: JobCheck['metadata'];
  if (j.metadata !== undefined) {
    if (!isObj(j.metadata)) throw new Refused(`${path}.metadata must be an object`);
    onlyKnown(j.metadata, `${path}.metadata`, ['labels', 'annotations']);
    metadata = {
      ...(j.metadata.labels !== undefined
        ? { labels: stringMap(j.metadata.labels, `${path}.metadata.labels`) }
        : {}),
      ...(j.metadata.annotations !== undefined
        ? { annotations: stringMap(j.metadata.annotations, `${path}.metadata.annotations`) }
        : {}),
    };
  }
  return { ...(metadata !== undefined ? { metadata } : {}), spec: j.spec as JobCheck['spec'] };
}

function stringMap(v: unknown, path: string): Record<string, string> {
  if (!isObj(v) || Object.values(v).some((x) => typeof x !== 'string'))
    throw new Refused(`${path} must map names to strings`);
  return v as Record<string, string>;
}

const METRIC_FIELDS = [
  'name',
  'interval',
  'count',
  'failureLimit',
  'inconclusiveLimit',
  'successCondition',
  'failureCondition',
  'provider',
];

function metric(m: Obj): VerificationCheck {
  onlyKnown(m, '', METRIC_FIELDS);
  const name = str(m, 'name', 'metric', true) as string;
  if (!CHECK_NAME.test(name) || name.length > 63) {
    throw new Refused('name: a check name is lowercase letters, digits and -, at most 63 characters');
  }
  if (!isObj(m.provider)) throw new Refused('provider is required');
  const providers = Object.keys(m.provider);
  if (providers.length !== 1)
    throw new Refused(`provider: want exactly one, got ${providers.join(', ') || 'none'}`);
  const kind = providers[0] as string;
  const p = m.provider[kind];
  if (!isObj(p)) throw new Refused(`provider.${kind} must be an object`);
  let provider: Pick<VerificationCheck, 'prometheus' | 'web' | 'job'>;
  switch (kind) {
    case 'prometheus':
      provider = { prometheus: prometheus(p) };
      break;
    case 'web':
      provider = { web: web(p) };
      break;
    case 'job':
      provider = { job: job(p) };
      break;
    default:
      throw new Refused(`provider ${kind} is not supported (convoy reads prometheus, web and job)`);
  }
  // Argo Rollouts judges a job metric by how its Job ends, whatever conditions it names.
  const successCondition = kind === 'job' ? undefined : condition(m, 'successCondition');
  const failureCondition = kind === 'job' ? undefined : condition(m, 'failureCondition');
  const interval = duration(m, 'interval');
  const count = intField(m, 'count', 1, 10000);
  const failureLimit = intField(m, 'failureLimit', 0, 1000);
  const inconclusiveLimit = intField(m, 'inconclusiveLimit', 0, 1000);
  if (kind !== 'job' && successCondition === undefined && failureCondition === undefined) {
    throw new Refused('a prometheus or web metric needs successCondition or failureCondition');
  }
  return {
    name,
    ...provider,
    ...(successCondition !== undefined ? { successCondition } : {}),
    ...(failureCondition !== undefined ? { failureCondition } : {}),
    ...(failureLimit !== undefined ? { failureLimit } : {}),
    ...(inconclusiveLimit !== undefined ? { inconclusiveLimit } : {}),
    ...(count !== undefined ? { count } : {}),
    ...(interval !== undefined ? { interval } : {}),
  };
}

function templateArgs(v: unknown): VerificationArg[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new Refused('spec.args must be a list');
  return v.map((a, i) => {
    if (!isObj(a) || typeof a.name !== 'string' || !/^[A-Za-z0-9_.-]+$/.test(a.name)) {
      throw new Refused(`spec.args[${i}] needs a name of letters, digits, _, . and -`);
    }
    onlyKnown(a, `spec.args ${a.name}:`, ['name', 'value', 'valueFrom']);
    // The docs write `value: 9090`: a YAML number read as its text.
    const v = a.value;
    if (v !== undefined && typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') {
      throw new Refused(`spec.args ${a.name}: value must be a string`);
    }
    if (a.valueFrom === undefined) return { name: a.name, ...(v !== undefined ? { value: String(v) } : {}) };
    const ref = isObj(a.valueFrom) ? a.valueFrom.secretKeyRef : undefined;
    if (!isObj(a.valueFrom) || Object.keys(a.valueFrom).length !== 1 || !isObj(ref)) {
      throw new Refused(`spec.args ${a.name}: valueFrom is read from secretKeyRef only`);
    }
    if (typeof ref.name !== 'string' || typeof ref.key !== 'string') {
      throw new Refused(`spec.args ${a.name}: secretKeyRef needs name and key`);
    }
    return { name: a.name, valueFrom: { secretKeyRef: { name: ref.name, key: ref.key } } };
  });
}

/** Every `{{args.<name>}}` a check refers to. */
export function checkArgNames(c: VerificationCheck): readonly string[] {
  const texts = [
    c.prometheus?.query,
    c.prometheus?.address,
    c.web?.url,
    c.web?.body,
    ...(c.prometheus?.headers ?? c.web?.headers ?? []).map((h) => h.value),
    ...(c.job === undefined ? [] : jobStrings(c.job)),
  ];
  return [...new Set(texts.flatMap((t) => (t === undefined ? [] : argNames(t))))];
}

/** Reads one AnalysisTemplate or ClusterAnalysisTemplate object as it is. */
export function readAnalysisTemplate(obj: unknown): ReadTemplateOutcome {
  const o = isObj(obj) ? obj : {};
  const kind = typeof o.kind === 'string' ? o.kind : '';
  const name = isObj(o.metadata) && typeof o.metadata.name === 'string' ? o.metadata.name : '(unnamed)';
  const label = `${kind || 'template'} ${name}`;
  if (o.apiVersion !== ARGO_API_VERSION || !(TEMPLATE_KINDS as readonly string[]).includes(kind)) {
    return {
      ok: false,
      message: `${label}: want apiVersion ${ARGO_API_VERSION}, kind AnalysisTemplate or ClusterAnalysisTemplate`,
    };
  }
  const spec = isObj(o.spec) ? o.spec : {};
  let args: VerificationArg[];
  try {
    // measurementRetention only says how many measurements Argo keeps: convoy keeps its own number.
    onlyKnown(spec, 'spec', ['metrics', 'args', 'measurementRetention']);
    args = templateArgs(spec.args);
  } catch (e) {
    return { ok: false, message: `${label}: ${errorMessage(e)}` };
  }
  const metrics = Array.isArray(spec.metrics) ? spec.metrics : [];
  if (metrics.length === 0) return { ok: false, message: `${label}: spec.metrics is empty` };
  const checks: VerificationCheck[] = [];
  for (const [i, m] of metrics.entries()) {
    const metricName = isObj(m) && typeof m.name === 'string' ? m.name : `#${i}`;
    try {
      if (!isObj(m)) throw new Refused('must be an object');
      const check = metric(m);
      if (checks.some((c) => c.name === check.name)) throw new Refused('name is used by another metric');
      checks.push(check);
    } catch (e) {
      return { ok: false, message: `${label}, metric ${metricName}: ${errorMessage(e)}` };
    }
  }
  return { ok: true, template: label, checks, args };
}
