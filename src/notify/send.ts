// One HTTP POST of a notification, bounded by a timeout, and what its answer means for the queue:
// delivered (2xx), retry (no answer, a timeout, 408, 429, 5xx) or refused (any other answer: retrying
// would not change it). Failures are described without the URL or any header: a Slack webhook's URL
// and a token are secrets, and Node's own error messages may quote the URL.
import type { HttpRequest } from './providers.ts';

export type SendResult =
  | { readonly kind: 'delivered'; readonly status: number }
  | { readonly kind: 'retry'; readonly why: string }
  | { readonly kind: 'refused'; readonly why: string };

export type Sender = (req: HttpRequest, timeoutMs: number) => Promise<SendResult>;

/** What an HTTP status means for a retry. Pure. */
export function classifyStatus(status: number): SendResult {
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  const why = `HTTP ${status}`;
  if (status === 408 || status === 429 || status >= 500) return { kind: 'retry', why };
  return { kind: 'refused', why };
}

/**
 * A failure without an HTTP answer, in words that quote nothing of the request: retried, except a URL
 * fetch cannot even parse (a TypeError without a cause), which no retry mends. Pure.
 */
export function networkFailure(err: unknown): SendResult {
  const e = err as { name?: unknown; cause?: { code?: unknown } } | undefined;
  if (e?.name === 'TimeoutError') return { kind: 'retry', why: 'timed out' };
  const code = e?.cause?.code;
  if (typeof code === 'string' && /^[A-Z0-9_]+$/.test(code))
    return { kind: 'retry', why: `no answer (${code})` };
  if (e?.name === 'TypeError' && e.cause === undefined) {
    return { kind: 'refused', why: 'the address is not a valid URL' };
  }
  return { kind: 'retry', why: 'no answer' };
}

/** POSTs with fetch: no redirects followed (a redirect is refused), the body drained, `timeoutMs` overall. */
export const fetchSender: Sender = async (req, timeoutMs) => {
  let res: Response;
  try {
    res = await fetch(req.url, {
      method: 'POST',
      headers: req.headers,
      body: req.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    return networkFailure(err);
  }
  // The status is the answer; the unread body is released, and a failure to release it is reported
  // like any other network failure rather than dropped.
  try {
    await res.body?.cancel();
  } catch (err) {
    return networkFailure(err);
  }
  return classifyStatus(res.status);
};
