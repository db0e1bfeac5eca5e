// One bounded HTTP exchange (an OCI registry, a Helm repository, a verification check's Prometheus or
// web call), on node:http(s) (fetch cannot take a CA bundle): a total time limit, an idle limit, a cap
// on the body read (a longer body ends the exchange), the caller's abort signal, and redirects followed
// a few times — never from https to http unless insecure, and never carrying the Authorization header
// to another host (blob storage behind a redirect).
import http from 'node:http';
import https from 'node:https';

export type HttpLimits = {
  /** Whole exchange, redirects included. */
  readonly timeoutMs: number;
  /** No byte for this long ends it. */
  readonly idleMs: number;
};

export type HttpRequest = {
  readonly method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH';
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
  /** More body than this ends the exchange with BodyTooLargeError. */
  readonly maxBodyBytes: number;
};

export type HttpResponse = {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  /** The URL that answered (after redirects). */
  readonly url: URL;
};

export type HttpOptions = HttpLimits & {
  readonly caPem?: string;
  /** Allow http:// (and a redirect to it). */
  readonly insecure: boolean;
  readonly signal?: AbortSignal;
};

/** `req` passed its total time limit, or its server sent nothing for the idle limit; `ms` is that limit. */
export class HttpTimeoutError extends Error {
  override readonly name = 'HttpTimeoutError';
  readonly ms: number;
  constructor(req: HttpRequest, limit: 'total' | 'idle', ms: number) {
    super(
      limit === 'total'
        ? `${req.method} ${req.url.host} took longer than ${ms} ms`
        : `${req.url.host} sent nothing for ${ms} ms`,
    );
    this.ms = ms;
  }
}

/** The answer is over `req.maxBodyBytes` (announced or sent). */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

const MAX_REDIRECTS = 5;

export async function exchange(req: HttpRequest, opts: HttpOptions): Promise<HttpResponse> {
  const deadline = Date.now() + opts.timeoutMs;
  let url = req.url;
  let headers = { ...req.headers };
  for (let hop = 0; ; hop++) {
    if (url.protocol === 'http:' && !opts.insecure) {
      throw new Error(`refusing plain HTTP to ${url.host} (set insecure: true to allow it)`);
    }
    const res = await once({ ...req, url, headers }, opts, deadline);
    const location = res.headers.location;
    if (res.status >= 300 && res.status < 400 && res.status !== 304 && location !== undefined) {
      if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects from ${req.url.host}`);
      const next = new URL(location, url);
      if (next.host !== url.host) {
        const { authorization: _drop, ...rest } = headers;
        headers = rest;
      }
      url = next;
      continue;
    }
    return res;
  }
}

function once(req: HttpRequest, opts: HttpOptions, deadline: number): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const left = deadline - Date.now();
    if (left <= 0) {
      reject(new HttpTimeoutError(req, 'total', opts.timeoutMs));
      return;
    }
    if (opts.signal?.aborted) {
      reject(new Error(`${req.method} ${req.url.host} aborted`));
      return;
    }
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(req.body.length);
    const options = {
      method: req.method,
      headers,
      agent: false as const,
      ...(opts.caPem === undefined ? {} : { ca: opts.caPem }),
    };
    const r =
      req.url.protocol === 'https:' ? https.request(req.url, options) : http.request(req.url, options);
    let settled = false;
    const finish = (err: Error | undefined, res?: HttpResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(total);
      opts.signal?.removeEventListener('abort', onAbort);
      if (err !== undefined) {
        r.destroy();
        reject(err);
      } else if (res !== undefined) resolve(res);
    };
    const total = setTimeout(() => finish(new HttpTimeoutError(req, 'total', opts.timeoutMs)), left);
    const onAbort = () => finish(new Error(`${req.method} ${req.url.host} aborted`));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    r.setTimeout(opts.idleMs, () => finish(new HttpTimeoutError(req, 'idle', opts.idleMs)));
    r.on('error', (e) => finish(e));
    r.on('response', (res) => {
      const declared = Number(res.headers['content-length'] ?? Number.NaN);
      if (Number.isFinite(declared) && declared > req.maxBodyBytes && req.method !== 'HEAD') {
        finish(
          new BodyTooLargeError(
            `${req.url.host} announced ${declared} bytes, over the limit of ${req.maxBodyBytes}`,
          ),
        );
        return;
      }
      const chunks: Buffer[] = [];
      let n = 0;
      res.on('data', (c: Buffer) => {
        n += c.length;
        if (n > req.maxBodyBytes) {
          finish(new BodyTooLargeError(`${req.url.host} sent more than ${req.maxBodyBytes} bytes`));
          return;
        }
        chunks.push(c);
      });
      res.on('error', (e) => finish(e));
      res.on('end', () =>
        finish(undefined, {
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          url: req.url,
        }),
      );
    });
    r.end(req.body === undefined ? undefined : Buffer.from(req.body));
  });
}
