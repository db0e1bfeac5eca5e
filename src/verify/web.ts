// One web check call, with the bounds of a Prometheus query (time limit, 1 MiB, JSON required, HTML
// refused by name): the answer, narrowed by the check's jsonPath, is the value its conditions read
// (docs/design.md#verification).
import { callJson } from './http.ts';
import { parseJsonPath, selectJson } from './json-path.ts';

export interface WebCall {
  /** Args substituted. */
  readonly url: string;
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly jsonPath?: string;
  readonly timeoutMs?: number;
  readonly caPem?: string;
  /** Values to keep out of every message (secret headers and args). */
  readonly secrets: readonly string[];
}

export type WebOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly message: string };

export async function callWeb(c: WebCall, signal?: AbortSignal): Promise<WebOutcome> {
  let url: URL;
  try {
    url = new URL(c.url);
  } catch {
    return { ok: false, message: 'url is not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, message: 'url must be http:// or https://' };
  }
  const path = c.jsonPath === undefined ? undefined : parseJsonPath(c.jsonPath);
  if (path !== undefined && !path.ok) return path;
  const answer = await callJson({
    method: c.method,
    url,
    headers: c.headers,
    ...(c.body !== undefined ? { body: c.body } : {}),
    ...(c.timeoutMs !== undefined ? { timeoutMs: c.timeoutMs } : {}),
    ...(c.caPem !== undefined ? { caPem: c.caPem } : {}),
    secrets: c.secrets,
    ...(signal !== undefined ? { signal } : {}),
  });
  if (!answer.ok) return { ok: false, message: answer.message };
  if (path === undefined) return { ok: true, value: answer.json };
  const selected = selectJson(answer.json, path.steps);
  if (!selected.found) return { ok: false, message: `jsonPath ${c.jsonPath} matched nothing in the answer` };
  return { ok: true, value: selected.value };
}
