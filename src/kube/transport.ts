// The one HTTP transport to a Kubernetes API server: JSON requests and watch streams over node:https
// with a keep-alive Agent shared by every client of the same TLS identity, so the connections of the
// KubeClient, the informers and the lease elector are reused instead of opened per request.
// Authentication comes from KubeConfig.applyToHTTPSOptions on every request (bearer token, client
// certificate, exec/OIDC providers, Impersonate-User); bodies are sent and read as plain JSON (no
// model serialization that could drop unknown fields or turn timestamps into Dates). Every request has a
// time limit (a server that accepts and never answers ends it); watches have their own idle limit.
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { createInterface } from 'node:readline';
import type { KubeConfig } from '@kubernetes/client-node';
import { fromResponse, type KubeApiError, type RequestInfo } from './errors.ts';
import { resourceOfPath } from './request-resource.ts';
import { sameTlsIdentity, type TlsIdentity } from './tls-identity.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RawRequest {
  readonly method: Method;
  /** Absolute API path, e.g. /apis/apps/v1/namespaces/x/deployments/y (may carry a query string). */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  /** Sent as JSON text (JSON is valid YAML, so this also serves apply patches). */
  readonly body?: unknown;
  readonly contentType?:
    | 'application/json'
    | 'application/apply-patch+yaml'
    | 'application/json-patch+json'
    | 'application/merge-patch+json';
  readonly signal?: AbortSignal;
  /** Default application/json; e.g. the Table form kubectl asks for. */
  readonly accept?: string;
  /** Limit of the whole exchange in ms (default DEFAULT_REQUEST_TIMEOUT_MS). */
  readonly timeoutMs?: number;
}

/**
 * A request ends after this long whatever the server does; kube-apiserver itself ends a request at 60 s
 * (--request-timeout), so an answer that has not come by 70 s is not coming.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 70_000;

/** A request that passed its time limit (it is aborted: the connection is closed). */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';
  readonly timeoutMs: number;
  constructor(method: string, url: URL, timeoutMs: number) {
    super(`${method} ${url.origin}${url.pathname} got no answer within ${timeoutMs / 1000}s`);
    this.timeoutMs = timeoutMs;
  }
}

export type WatchEvent = {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: Record<string, unknown>;
};

export interface WatchRequest {
  /** Collection path with the watch query, e.g. /api/v1/configmaps?watch=1&resourceVersion=5. */
  readonly path: string;
  readonly signal: AbortSignal;
  /** Abort a stream that sent nothing for this long (a half-open connection). */
  readonly idleMs: number;
}

/** Process-wide counts of what went over the wire (all transports): for benches and diagnostics. */
export interface TransportStats {
  readonly requests: Readonly<Record<string, number>>;
  /** Requests by `<METHOD> <resource>` (see resourceOfPath); watches count as `WATCH <resource>`. */
  readonly byResource: Readonly<Record<string, number>>;
  readonly watches: number;
  /** New TCP/TLS connections; requests minus this is how many reused a pooled connection. */
  readonly connections: number;
}

const stats = {
  requests: {} as Record<string, number>,
  byResource: {} as Record<string, number>,
  watches: 0,
  connections: 0,
};

function countByResource(verb: string, path: string): void {
  const k = `${verb} ${resourceOfPath(path)}`;
  stats.byResource[k] = (stats.byResource[k] ?? 0) + 1;
}

export function transportStats(): TransportStats {
  return {
    requests: { ...stats.requests },
    byResource: { ...stats.byResource },
    watches: stats.watches,
    connections: stats.connections,
  };
}

/**
 * Connections of one pool of requests (not watches) at once; more requests wait for a free one. Without a
 * bound a burst opened a connection per request in flight (91 in the controller-manager, 186 in the
 * observer at 1,000 Releases), each a TLS session in both processes' memory and the API server's, for a
 * server that was busy on its cores anyway (docs/design.md#process-bundles).
 */
export const MAX_REQUEST_CONNECTIONS = 16;

/** Requests share a bounded pool; watches, which hold their connection for minutes, one of their own. */
type Pool = 'request' | 'watch';

// Agents by TLS identity (server, CA, client certificate, verification) and pool. Tokens and
// impersonation are per-request headers, so clients that differ only there (impersonating copies of one
// KubeConfig) share connections; a different client certificate never does.
const agents = new Map<string, http.Agent>();
const lastByOrigin = new Map<string, { readonly tls: TlsIdentity; readonly agent: http.Agent }>();

function agentFor(url: URL, opts: https.RequestOptions, pool: Pool): http.Agent {
  const secure = url.protocol === 'https:';
  const tls = secure
    ? {
        ca: opts.ca,
        cert: opts.cert,
        key: opts.key,
        rejectUnauthorized: opts.rejectUnauthorized,
        servername: opts.servername,
      }
    : {};
  // Most requests of an origin present the identity of the one before: compared by content, no hash.
  const origin = `${pool} ${url.origin}`;
  const last = lastByOrigin.get(origin);
  if (last !== undefined && sameTlsIdentity(last.tls, tls)) return last.agent;
  const key = createHash('sha256')
    .update(origin)
    .update(JSON.stringify(tls, (_k, v) => (Buffer.isBuffer(v) ? v.toString('base64') : v)))
    .digest('hex');
  let agent = agents.get(key);
  if (agent === undefined) {
    // timeout closes pooled sockets idle this long, before the apiserver's own idle close (90 s)
    // can race a request onto a dying socket; in-flight requests and watches are not affected.
    const common = {
      keepAlive: true,
      keepAliveMsecs: 30_000,
      timeout: 60_000,
      scheduling: 'lifo' as const,
      ...(pool === 'request' ? { maxSockets: MAX_REQUEST_CONNECTIONS } : {}),
    };
    agent = secure ? new https.Agent({ ...common, ...tls }) : new http.Agent(common);
    agents.set(key, agent);
  }
  lastByOrigin.set(origin, { tls, agent });
  return agent;
}

/** A pooled socket the server had already closed: the request never reached it, so it is sent again. */
class StaleSocket extends Error {
  override readonly cause: unknown;
  constructor(cause: unknown) {
    super('pooled connection was closed by the server');
    this.cause = cause;
  }
}

/**
 * What the transport needs of a kubeconfig: the server and the credentials of each request. A
 * client-node KubeConfig is one; the CLI has a lighter one that does not load client-node.
 */
export type KubeAuth = Pick<KubeConfig, 'getCurrentCluster' | 'applyToHTTPSOptions'>;

const byConfig = new WeakMap<KubeAuth, KubeTransport>();

export class KubeTransport {
  readonly kubeConfig: KubeAuth;

  /** The transport of a KubeConfig (one per KubeConfig object; agents are shared by TLS identity). */
  static for(kc: KubeAuth): KubeTransport {
    let t = byConfig.get(kc);
    if (t === undefined) {
      t = new KubeTransport(kc);
      byConfig.set(kc, t);
    }
    return t;
  }

  constructor(kc: KubeAuth) {
    if (kc.getCurrentCluster() === null) throw new Error('kubeconfig has no current cluster');
    this.kubeConfig = kc;
  }

  // Read per request, as applyToHTTPSOptions reads the credentials: a KubeConfig whose current
  // context changes is followed, not half-followed.
  #url(path: string, query?: Readonly<Record<string, string | undefined>>): URL {
    const cluster = this.kubeConfig.getCurrentCluster();
    if (cluster === null) throw new Error('kubeconfig has no current cluster');
    const url = new URL(cluster.server.replace(/\/+$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    return url;
  }

  async #options(
    method: string,
    url: URL,
    headers: http.OutgoingHttpHeaders,
    pool: Pool,
  ): Promise<https.RequestOptions> {
    const opts: https.RequestOptions = { method, headers: { ...headers } };
    await this.kubeConfig.applyToHTTPSOptions(opts);
    // A proxy needs client-node's proxy agent; otherwise our pooled one.
    if (this.kubeConfig.getCurrentCluster()?.proxyUrl === undefined) opts.agent = agentFor(url, opts, pool);
    return opts;
  }

  /** Sends one request; returns the parsed JSON body (undefined when empty), or throws KubeApiError. */
  async request<T = unknown>(req: RawRequest): Promise<T> {
    const text = await this.requestText(req);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** Sends one request; returns the body as text (e.g. pod logs), or throws KubeApiError. */
  async requestText(req: RawRequest): Promise<string> {
    const url = this.#url(req.path, req.query);
    const info: RequestInfo = { method: req.method, path: req.path };
    const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
    const headers: http.OutgoingHttpHeaders = { accept: req.accept ?? 'application/json' };
    if (payload !== undefined) {
      headers['content-type'] = req.contentType ?? 'application/json';
      headers['content-length'] = payload.length;
    }
    const opts = await this.#options(req.method, url, headers, 'request');
    const timeoutMs = req.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new RequestTimeoutError(req.method, url, timeoutMs)),
      timeoutMs,
    );
    opts.signal = req.signal === undefined ? timeout.signal : AbortSignal.any([req.signal, timeout.signal]);
    stats.requests[req.method] = (stats.requests[req.method] ?? 0) + 1;
    countByResource(req.method, req.path);
    let answer: { status: number; text: string };
    try {
      try {
        answer = await exchange(url, opts, payload);
      } catch (e) {
        if (!(e instanceof StaleSocket)) throw e;
        answer = await exchange(url, opts, payload).catch((again: unknown) => {
          throw again instanceof StaleSocket ? again.cause : again;
        });
      }
    } catch (e) {
      // The abort's own error says less than its reason (the time limit, or the caller's).
      throw opts.signal.aborted ? opts.signal.reason : e;
    } finally {
      clearTimeout(timer);
    }
    if (answer.status < 200 || answer.status >= 300) throw fromResponse(answer.status, answer.text, info);
    return answer.text;
  }

  /**
   * Streams a watch until the server ends it (resolves) or it fails (rejects). A non-200 answer
   * rejects with a KubeApiError (origin 'response'); an ERROR event rejects with the Status it
   * carries (origin 'watch-event'; 410 Expired for a version the server no longer has).
   */
  async watch(req: WatchRequest, onEvent: (e: WatchEvent) => void): Promise<void> {
    const url = this.#url(req.path);
    const info: RequestInfo = { method: 'GET', path: req.path };
    const opts = await this.#options('GET', url, { accept: 'application/json' }, 'watch');
    const { signal, idleMs } = req;
    // A stop that came before the listener exists would otherwise leave the stream running.
    signal.throwIfAborted();
    const ac = new AbortController();
    const onAbort = () => ac.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    opts.signal = ac.signal;
    stats.watches++;
    countByResource('WATCH', req.path);
    try {
      await new Promise<void>((resolve, reject) => {
        let idle: NodeJS.Timeout | undefined;
        let settled = false;
        const arm = () => {
          clearTimeout(idle);
          idle = setTimeout(() => ac.abort(new Error(`watch idle for ${idleMs} ms`)), idleMs);
        };
        // An abort carries its cause (ERROR event, idle, stop) as the reason: report that, not the
        // socket error the abort produced.
        const finish = (err?: unknown) => {
          if (settled) return;
          settled = true;
          clearTimeout(idle);
          if (ac.signal.aborted) reject(ac.signal.reason);
          else if (err !== undefined) reject(err);
          else resolve();
        };
        ac.signal.addEventListener('abort', () => finish(), { once: true });
        arm();
        const r = send(url, opts, (res) => {
          const status = res.statusCode ?? 0;
          if (status !== 200) {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => finish(fromResponse(status, Buffer.concat(chunks).toString('utf8'), info)));
            res.on('error', finish);
            return;
          }
          res.on('data', arm);
          res.on('error', finish);
          // 'close' also fires after an abort; the aborted case is reported by 'error' first.
          res.on('close', () => finish(res.complete ? undefined : new Error('watch stream closed early')));
          const lines = createInterface({ input: res, crlfDelay: Infinity });
          // readline re-emits input errors; res's own handler already reports them.
          lines.on('error', () => {});
          lines.on('line', (line) => {
            if (line.trim() === '') return;
            let ev: WatchEvent;
            try {
              ev = JSON.parse(line) as WatchEvent;
            } catch {
              ac.abort(new Error('watch sent invalid JSON'));
              return;
            }
            if (ev.type === 'ERROR') {
              ac.abort(watchEventError(ev.object, info));
              return;
            }
            onEvent(ev);
          });
        });
        r.on('error', finish);
        r.end();
      });
    } finally {
      signal.removeEventListener('abort', onAbort);
      ac.abort();
    }
  }
}

/** The Status of a watch ERROR event as a KubeApiError. */
export function watchEventError(status: Record<string, unknown>, request?: RequestInfo): KubeApiError {
  const code = typeof status.code === 'number' ? status.code : 500;
  return fromResponse(code, status, request, 'watch-event');
}

function send(
  url: URL,
  opts: https.RequestOptions,
  onResponse: (res: http.IncomingMessage) => void,
): http.ClientRequest {
  const r = (url.protocol === 'https:' ? https : http).request(url, opts, onResponse);
  r.on('socket', () => {
    if (!r.reusedSocket) stats.connections++;
  });
  return r;
}

/** One request/response; a reset of a reused socket before any answer rejects with StaleSocket. */
function exchange(
  url: URL,
  opts: https.RequestOptions,
  payload: Buffer | undefined,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const r = send(url, opts, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    r.on('error', (e: NodeJS.ErrnoException) => {
      const stale = !answered && r.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE');
      reject(stale ? new StaleSocket(e) : e);
    });
    r.end(payload);
  });
}
