// One Prometheus instant query (/api/v1/query) for a check, bounded in time, size and series, mapped to
// the value a condition reads: a vector is a list of doubles (NaN and ±Inf kept), a scalar a double.
// A range vector or a string is refused with what to write instead. Every failure is a measurement in
// phase Error with a short message that names no credential (docs/design.md#verification).
import { redactSecrets } from './args.ts';
import { callJson } from './http.ts';

export const MAX_SERIES = 1000;

export type PrometheusAuth =
  | { readonly kind: 'bearer'; readonly token: string }
  | { readonly kind: 'basic'; readonly username: string; readonly password: string };

export interface PrometheusQuery {
  readonly address: string;
  /** The query sent (args substituted). */
  readonly query: string;
  readonly timeoutMs?: number;
  readonly auth?: PrometheusAuth;
  readonly caPem?: string;
  /** The check's headers, filled in (resolve.ts refused the ones convoy sets itself). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Secret values that may appear in the query or headers (secret args): kept out of messages. */
  readonly secrets?: readonly string[];
}

export type QueryOutcome =
  | { readonly ok: true; readonly value: number | readonly number[] }
  | { readonly ok: false; readonly message: string };

/** Prometheus' sample value text as a double: "NaN", "+Inf", "-Inf" included. */
export function sampleValue(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  if (text === '+Inf' || text === 'Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (text === 'NaN') return Number.NaN;
  const n = Number(text);
  return text.trim() === '' || Number.isNaN(n) ? undefined : n;
}

const isObj = (v: unknown): v is Readonly<Record<string, unknown>> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value of a /api/v1/query answer's `data`, or why it cannot be one. */
export function queryValue(data: unknown, maxSeries = MAX_SERIES): QueryOutcome {
  if (!isObj(data)) return { ok: false, message: 'the answer has no data' };
  const result = data.result;
  switch (data.resultType) {
    case 'vector': {
      if (!Array.isArray(result)) return { ok: false, message: 'the vector has no result list' };
      if (result.length > maxSeries) {
        return {
          ok: false,
          message: `the query returned ${result.length} series; the limit is ${maxSeries} (aggregate it, e.g. sum(...))`,
        };
      }
      const values: number[] = [];
      for (const s of result) {
        const v = isObj(s) && Array.isArray(s.value) ? sampleValue(s.value[1]) : undefined;
        if (v === undefined) return { ok: false, message: 'a sample of the vector has no numeric value' };
        values.push(v);
      }
      return { ok: true, value: values };
    }
    case 'scalar': {
      const v = Array.isArray(result) ? sampleValue(result[1]) : undefined;
      return v === undefined
        ? { ok: false, message: 'the scalar has no numeric value' }
        : { ok: true, value: v };
    }
    case 'matrix':
      return {
        ok: false,
        message:
          'the query returned a range vector (matrix); write an instant query, e.g. max_over_time(x[5m])',
      };
    case 'string':
      return { ok: false, message: 'the query returned a string, not a number' };
    default:
      return { ok: false, message: `unknown resultType ${JSON.stringify(data.resultType)}` };
  }
}

function endpoint(address: string): URL | undefined {
  try {
    const base = new URL(address.endsWith('/') ? address : `${address}/`);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') return undefined;
    return new URL('api/v1/query', base);
  } catch {
    return undefined;
  }
}

/** Sends one instant query (POST, so a long query fits) and reads its value. */
export async function queryPrometheus(q: PrometheusQuery, signal?: AbortSignal): Promise<QueryOutcome> {
  const url = endpoint(q.address);
  if (url === undefined) return { ok: false, message: 'address must be an http:// or https:// URL' };
  const secrets = [...(q.secrets ?? [])];
  const headers: Record<string, string> = {
    ...q.headers,
    'content-type': 'application/x-www-form-urlencoded',
  };
  if (q.auth?.kind === 'bearer') {
    headers.authorization = `Bearer ${q.auth.token}`;
    secrets.push(q.auth.token);
  } else if (q.auth?.kind === 'basic') {
    headers.authorization = `Basic ${Buffer.from(`${q.auth.username}:${q.auth.password}`).toString('base64')}`;
    secrets.push(q.auth.password);
  }
  const answer = await callJson({
    method: 'POST',
    url,
    headers,
    body: new URLSearchParams({ query: q.query }).toString(),
    ...(q.timeoutMs !== undefined ? { timeoutMs: q.timeoutMs } : {}),
    ...(q.caPem !== undefined ? { caPem: q.caPem } : {}),
    secrets,
    ...(signal !== undefined ? { signal } : {}),
  });
  const json = answer.json;
  // Prometheus explains a refused query in its JSON ({status: "error", errorType, error}).
  if (isObj(json) && json.status === 'error') {
    const why = typeof json.error === 'string' ? json.error.slice(0, 300) : 'no reason given';
    const status = answer.ok ? answer.status : (answer.status ?? 0);
    return {
      ok: false,
      message: redactSecrets(`Prometheus refused the query (HTTP ${status}): ${why}`, secrets),
    };
  }
  if (!answer.ok) return { ok: false, message: answer.message };
  if (!isObj(json) || json.status !== 'success') {
    return { ok: false, message: `${url.host} answered JSON that is not a Prometheus query result` };
  }
  return queryValue(json.data);
}
