// The one bounded HTTP call a Prometheus or web check makes: a time limit (default 10 s, at most 60 s),
// a 1 MiB cap on the answer read as it streams, JSON required (an HTML page, a login form, a proxy's
// error page is named as such). Failures come back as a short message that names the host, never a
// header, a credential or the full URL (docs/design.md#verification).

import { errorMessage } from '../lib/errors.ts';
import { BodyTooLargeError, exchange, HttpTimeoutError } from '../lib/http-exchange.ts';
import { redactSecrets } from './args.ts';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const MAX_TIMEOUT_MS = 60_000;
export const MAX_ANSWER_BYTES = 1024 * 1024;

export interface JsonCall {
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Clamped to (0, MAX_TIMEOUT_MS]; default DEFAULT_TIMEOUT_MS. */
  readonly timeoutMs?: number;
  readonly caPem?: string;
  /** Values to keep out of every message (tokens, passwords, secret args). */
  readonly secrets: readonly string[];
  readonly signal?: AbortSignal;
  readonly maxBytes?: number;
}

export type JsonAnswer =
  | { readonly ok: true; readonly status: number; readonly json: unknown }
  | { readonly ok: false; readonly message: string; readonly status?: number; readonly json?: unknown };

/** The time limit a check asks for, within the bounds. */
export function clampTimeout(ms: number | undefined): number {
  if (ms === undefined || !(ms > 0)) return DEFAULT_TIMEOUT_MS;
  return Math.min(ms, MAX_TIMEOUT_MS);
}

const looksLikeHtml = (text: string) => /^\s*(<!doctype html|<html|<head|<body)/i.test(text);

/** Calls and reads a JSON answer; a non-2xx answer keeps its JSON (Prometheus explains errors there). */
export async function callJson(call: JsonCall): Promise<JsonAnswer> {
  const timeoutMs = clampTimeout(call.timeoutMs);
  const maxBytes = call.maxBytes ?? MAX_ANSWER_BYTES;
  const host = call.url.host;
  const fail = (message: string, status?: number): JsonAnswer => ({
    ok: false,
    message: redactSecrets(message, call.secrets),
    ...(status !== undefined ? { status } : {}),
  });
  let res: Awaited<ReturnType<typeof exchange>>;
  try {
    res = await exchange(
      {
        method: call.method,
        url: call.url,
        headers: { accept: 'application/json', ...call.headers },
        ...(call.body !== undefined ? { body: new TextEncoder().encode(call.body) } : {}),
        maxBodyBytes: maxBytes,
      },
      {
        timeoutMs,
        idleMs: timeoutMs,
        insecure: true,
        ...(call.caPem !== undefined ? { caPem: call.caPem } : {}),
        ...(call.signal !== undefined ? { signal: call.signal } : {}),
      },
    );
  } catch (e) {
    if (e instanceof HttpTimeoutError) return fail(`${host} did not answer within ${timeoutMs / 1000} s`);
    if (e instanceof BodyTooLargeError)
      return fail(`${host} answered more than ${maxBytes / 1024 / 1024} MiB`);
    return fail(`${host} unreachable: ${errorMessage(e)}`);
  }
  const text = res.body.toString('utf8');
  const type = String(res.headers['content-type'] ?? '');
  if (type.includes('text/html') || looksLikeHtml(text)) {
    return fail(
      `${host} answered HTTP ${res.status} with an HTML page, not JSON (a login page or a proxy?)`,
      res.status,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const start = text.slice(0, 80).replace(/\s+/g, ' ');
    return fail(
      `${host} answered HTTP ${res.status} with something other than JSON: ${JSON.stringify(start)}`,
      res.status,
    );
  }
  if (res.status < 200 || res.status > 299) {
    return { ...fail(`${host} answered HTTP ${res.status}`, res.status), json };
  }
  return { ok: true, status: res.status, json };
}
