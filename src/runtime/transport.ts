// Raw JSON requests and watch streams against the API server, authenticated through
// @kubernetes/client-node's KubeConfig. The informer and the lease elector use this rather
// than the typed clients: the typed models turn timestamps into Date objects and can drop
// fields they do not know, and the generic informer needs the watch stream as the server
// sends it (BOOKMARK events, ERROR events carrying 410).
import https from 'node:https';
import { createInterface } from 'node:readline';
import type { KubeConfig } from '@kubernetes/client-node';

export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly reason: string | undefined;
  constructor(status: number, reason: string | undefined, message: string) {
    super(`${status} ${reason ?? ''}: ${message}`);
    this.status = status;
    this.reason = reason;
  }
}

export function isGone(e: unknown): boolean {
  return e instanceof ApiError && (e.status === 410 || e.reason === 'Expired' || e.reason === 'Gone');
}

export type WatchEvent = {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: Record<string, unknown>;
};

export class Transport {
  readonly #kc: KubeConfig;

  constructor(kc: KubeConfig) {
    this.#kc = kc;
  }

  async #options(method: string, path: string): Promise<{ url: URL; opts: https.RequestOptions }> {
    const cluster = this.#kc.getCurrentCluster();
    if (cluster === null) throw new Error('kubeconfig has no current cluster');
    const url = new URL(cluster.server.replace(/\/$/, '') + path);
    const opts: https.RequestOptions = { method, headers: { accept: 'application/json' } };
    await this.#kc.applyToHTTPSOptions(opts);
    return { url, opts };
  }

  /** One JSON request (PATCH: a JSON merge patch); a non-2xx answer throws ApiError with the Status reason. */
  async request<T>(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
    contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
  ): Promise<T> {
    const { url, opts } = await this.#options(method, path);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    if (payload !== undefined) {
      opts.headers = {
        ...opts.headers,
        'content-type': contentType,
        'content-length': payload.length,
      };
    }
    if (signal) opts.signal = signal;
    return await new Promise<T>((resolve, reject) => {
      const req = https.request(url, opts, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            reject(statusError(status, text));
            return;
          }
          try {
            resolve(JSON.parse(text) as T);
          } catch (e) {
            reject(e);
          }
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /**
   * Streams a watch until the server ends it (resolves) or it fails (rejects). An ERROR event
   * is turned into a rejection with the Status it carries (410 Gone for an expired version).
   * idleMs aborts a stream that sent nothing for that long (a half-open connection).
   */
  async watch(
    path: string,
    onEvent: (e: WatchEvent) => void,
    signal: AbortSignal,
    idleMs: number,
  ): Promise<void> {
    const { url, opts } = await this.#options('GET', path);
    // A stop that came before the listener exists would otherwise leave the stream running.
    signal.throwIfAborted();
    const ac = new AbortController();
    const onAbort = () => ac.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    opts.signal = ac.signal;
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
        const req = https.request(url, opts, (res) => {
          const status = res.statusCode ?? 0;
          if (status !== 200) {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => finish(statusError(status, Buffer.concat(chunks).toString('utf8'))));
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
              const s = ev.object as { code?: number; reason?: string; message?: string };
              ac.abort(new ApiError(s.code ?? 500, s.reason, s.message ?? 'watch error'));
              return;
            }
            onEvent(ev);
          });
        });
        req.on('error', finish);
        req.end();
      });
    } finally {
      signal.removeEventListener('abort', onAbort);
      ac.abort();
    }
  }
}

function statusError(status: number, text: string): ApiError {
  try {
    const s = JSON.parse(text) as { reason?: string; message?: string };
    return new ApiError(status, s.reason, s.message ?? text);
  } catch {
    return new ApiError(status, undefined, text.slice(0, 200));
  }
}
