// The HTTPS server of the HTTP API (docs/http-api.md): route → authenticate → authorize → handler. Handlers
// are thin: they read what the cluster holds, hand it to the pure builders (views.ts, sync.ts) and write
// the one Server-Side Apply a /sync needs. startApiServer is what the controller-manager calls. Rotated
// serving certificates and front-proxy CAs are taken while it runs (watch.ts): new connections get the new
// secure context, open ones keep theirs.
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Release } from '../api/types.ts';
import { KubeClient } from '../kube/client.ts';
import { isKubeError } from '../kube/errors.ts';
import { EventRecorder } from '../kube/events.ts';
import { readInventoryParts } from '../kube/inventory-read.ts';
import { assertNever } from '../lib/assert-never.ts';
import { RenderStoreCorruptError } from '../store/errors.ts';
import { SecretRenderStore } from '../store/secrets.ts';
import type { RenderStore } from '../store/types.ts';
import { DelegatingAuth } from './auth.ts';
import { parseSyncBody } from './body.ts';
import type { RequestHeaderConfig, UserInfo } from './credentials.ts';
import { apiGroup, apiGroupList, apiResourceList, RESPONSE_KINDS } from './discovery.ts';
import { HookHandler } from './hooks.ts';
import { type ApiMetrics, routeLabel } from './metrics.ts';
import { answerPlainHttp } from './plain-http.ts';
import type { ServingPair } from './reload.ts';
import {
  accessFor,
  forbiddenMessage,
  GROUP_VERSION,
  type Route,
  type RouteResult,
  route,
  secretsAccessFor,
} from './routes.ts';
import { type ApiError, apiError, isApiError, statusBody } from './status.ts';
import { type EventSink, getRelease, writeSync } from './sync-write.ts';
import { loadServingCert, type TlsSource } from './tls.ts';
import { type Trust, trustOf } from './trust.ts';
import { type UiPath, uiPath } from './ui-path.ts';
import { healthResult, historyResult, renderResult } from './views.ts';
import {
  DEFAULT_CERT_POLL_MS,
  DEFAULT_REQUESTHEADER_POLL_MS,
  type Poller,
  watchRequestHeader,
  watchServingFiles,
} from './watch.ts';

export interface ApiServerOptions {
  /** Credentials of the server itself: reads Releases, inventories and the render store, writes /sync annotations, sends reviews. */
  readonly kubeConfig: KubeConfig;
  readonly tls: TlsSource;
  /**
   * How often the files of `tls: {kind: 'files'}` are re-read (default 5000 ms; 0: never). A changed,
   * usable pair is served to new connections; a broken one is refused with a warning.
   */
  readonly certReloadIntervalMs?: number;
  /** Default 127.0.0.1; in a cluster pass 0.0.0.0 (or the pod IP). */
  readonly host?: string;
  /** Default 0: a free port (read it from the returned url). */
  readonly port?: number;
  /** Trust X-Remote-* headers from a front proxy (the aggregation layer); see loadRequestHeaderConfig. */
  readonly requestHeader?: RequestHeaderConfig;
  /**
   * Follow kube-system/extension-apiserver-authentication while running: re-read it (true: every 10 s)
   * and trust what it publishes now, so a rotated front-proxy CA is taken and the old one dropped.
   * `requestHeader`, if given, is trusted until the first read; without it the first read is at once.
   */
  readonly followClusterRequestHeader?: boolean | { readonly intervalMs: number };
  /** How long TokenReview and SubjectAccessReview answers are reused (default 10 s; 0 disables). */
  readonly authCacheTtlMs?: number;
  readonly store?: RenderStore;
  readonly log?: Logger;
  /** convoy_api_requests_total{route,code}; see newApiMetrics. */
  readonly metrics?: ApiMetrics;
  readonly now?: () => Date;
  /**
   * The web UI behind this API (ui-path.ts names its paths; docs/ui.md#in-a-cluster): called for an
   * authenticated request with the user kube-apiserver (or a bearer token) names. Unset: those paths
   * are 404 like any other unknown path.
   */
  readonly ui?: UiHandler;
}

/**
 * What serves the web UI for one authenticated user (src/ui/mount.ts; injected by src/cmd). Its owner
 * closes it: it outlives a restart of this server with new front-proxy settings.
 */
export interface UiHandler {
  serve(req: IncomingMessage, res: ServerResponse, user: UserInfo, at: UiPath): Promise<void>;
  close(): Promise<void>;
}

export interface ApiServer {
  /** https://host:port */
  readonly url: string;
  readonly port: number;
  /** PEM of the serving certificate served now (clients of a self-signed server trust exactly this). */
  readonly cert: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024;

export async function startApiServer(opts: ApiServerOptions): Promise<ApiServer> {
  let serving: ServingPair = await loadServingCert(opts.tls);
  let trust: Trust | undefined;
  if (opts.requestHeader !== undefined) {
    const t = trustOf(opts.requestHeader);
    if (typeof t === 'string') throw new Error(`the front-proxy settings given: ${t}`);
    trust = t;
  }
  const follow = opts.followClusterRequestHeader;
  const followMs =
    follow === undefined || follow === false
      ? undefined
      : follow === true
        ? DEFAULT_REQUESTHEADER_POLL_MS
        : follow.intervalMs;
  const client = new KubeClient(opts.kubeConfig);
  // The Events naming who asked for a sync (sync-write.ts): sent in the background, never delaying an answer.
  const events = new EventRecorder(client, {
    onDropped: (reason, err) =>
      opts.log?.warn(
        { reason, err: err === undefined ? undefined : String(err) },
        'HTTP API: a sync Event was dropped',
      ),
  });
  const handler = new Handler({
    client,
    events,
    store: opts.store ?? new SecretRenderStore(client),
    auth: new DelegatingAuth(client, () => trust, opts.authCacheTtlMs ?? 10_000),
    now: opts.now ?? (() => new Date()),
    log: opts.log,
    metrics: opts.metrics,
    ui: opts.ui,
  });
  // setSecureContext replaces every TLS option at once, so each change rebuilds from both halves.
  const secureContext = (pair: ServingPair, t: Trust | undefined) => ({
    cert: pair.cert,
    key: pair.key,
    ...(t === undefined ? {} : { ca: t.config.clientCA }),
  });
  const server: Server = createServer(
    {
      ...secureContext(serving, trust),
      // Client certificates are asked for but not required: only a front proxy sends one, and it is
      // checked against the requestheader CA before any X-Remote-* header is believed. Asked for from the
      // start when following the cluster: requestCert cannot be changed on a listening server.
      requestCert: trust !== undefined || followMs !== undefined,
      rejectUnauthorized: false,
    },
    (req, res) => void handler.serve(req, res),
  );
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  answerPlainHttp(server, () => `https://${urlHost}:${port}`);
  opts.log?.info({ port, host }, 'HTTP API listening');

  const pollers: Poller[] = [];
  /** A poller found a new half (the serving pair or the trust); the other is passed as it was. */
  const reload = (pair: ServingPair, t: Trust | undefined) => {
    server.setSecureContext(secureContext(pair, t));
    serving = pair;
    trust = t;
  };
  const pollDeps = { log: opts.log, metrics: opts.metrics };
  const certEveryMs = opts.certReloadIntervalMs ?? DEFAULT_CERT_POLL_MS;
  if (opts.tls.kind === 'files' && certEveryMs > 0) {
    const current = { ...serving, fingerprint256: new X509Certificate(serving.cert).fingerprint256 };
    pollers.push(
      watchServingFiles(opts.tls, current, {
        ...pollDeps,
        intervalMs: certEveryMs,
        apply: (pair) => reload(pair, trust),
      }),
    );
  }
  if (followMs !== undefined) {
    pollers.push(
      watchRequestHeader(client, trust?.config, {
        ...pollDeps,
        intervalMs: followMs,
        apply: (t) => reload(serving, t),
      }),
    );
  }
  return {
    url: `https://${urlHost}:${port}`,
    port,
    get cert() {
      return serving.cert;
    },
    close: async () => {
      await Promise.all(pollers.map((p) => p.stop()));
      await events.flush(2000);
      events.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

interface Deps {
  readonly client: KubeClient;
  readonly events: EventSink;
  readonly store: RenderStore;
  readonly auth: DelegatingAuth;
  readonly now: () => Date;
  readonly log: Logger | undefined;
  readonly metrics: ApiMetrics | undefined;
  readonly ui: UiHandler | undefined;
}

type Reply = { readonly code: 200; readonly body: unknown } | ApiError;

class Handler {
  readonly #d: Deps;
  readonly #hooks: HookHandler;
  constructor(deps: Deps) {
    this.#d = deps;
    this.#hooks = new HookHandler({
      client: deps.client,
      events: deps.events,
      now: deps.now,
      log: deps.log,
      count: (code) => deps.metrics?.requests.inc({ route: 'hook', code: String(code) }),
    });
  }

  async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Push webhooks carry no Kubernetes credentials: the Receiver's token authenticates them (hooks.ts).
    if (HookHandler.matches(req.url)) return this.#hooks.serve(req, res);
    const ui = this.#d.ui === undefined ? undefined : uiPath(req.url ?? '/');
    if (ui !== undefined) return this.#ui(ui, req, res);
    const r = route(req.method ?? 'GET', req.url ?? '/');
    let reply: Reply;
    try {
      reply = await this.#reply(r, req);
    } catch (err) {
      reply = toApiError(err);
      this.#d.log?.error({ err, method: req.method, url: req.url }, 'HTTP API request failed');
    }
    this.#d.metrics?.requests.inc({ route: routeLabel(r), code: String(reply.code) });
    send(res, reply);
  }

  /** The web UI: whoever is authenticated gets it, and every read and write it makes is made as them. */
  async #ui(at: UiPath, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const count = (code: number) => this.#d.metrics?.requests.inc({ route: 'ui', code: String(code) });
    let authn: Awaited<ReturnType<DelegatingAuth['authenticate']>>;
    try {
      authn = await this.#d.auth.authenticate(req);
    } catch (err) {
      const reply = toApiError(err);
      count(reply.code);
      return send(res, reply);
    }
    if (authn.kind !== 'authenticated') {
      const reply = apiError(
        401,
        authn.kind === 'rejected'
          ? authn.message
          : 'no credentials: reach the UI through the API server (kubectl proxy), see docs/ui.md',
      );
      count(reply.code);
      return send(res, reply);
    }
    res.once('finish', () => count(res.statusCode));
    try {
      await this.#d.ui?.serve(req, res, authn.user, at);
    } catch (err) {
      this.#d.log?.error({ err, url: req.url }, 'web UI request failed');
      if (!res.headersSent) send(res, toApiError(err));
      else res.destroy();
    }
  }

  async #reply(r: RouteResult, req: IncomingMessage): Promise<Reply> {
    if (!r.ok) return r.error;
    const access = accessFor(r.route);
    let user: UserInfo | undefined;
    if (access !== undefined) {
      const authn = await this.#d.auth.authenticate(req);
      switch (authn.kind) {
        case 'noCredentials':
          return apiError(401, 'no credentials: send "Authorization: Bearer <token>"');
        case 'rejected':
          return apiError(401, authn.message);
        case 'authenticated': {
          for (const want of [access, secretsAccessFor(r.route)]) {
            if (want === undefined) continue;
            const z = await this.#d.auth.authorize(authn.user, want);
            if (!z.allowed) return apiError(403, forbiddenMessage(authn.user.username, want, z.reason));
          }
          user = authn.user;
          break;
        }
        default:
          return assertNever(authn);
      }
    }
    return this.#route(r.route, req, user);
  }

  /** `user`: who the request authenticated as, for the routes that need credentials. */
  async #route(rt: Route, req: IncomingMessage, user: UserInfo | undefined): Promise<Reply> {
    switch (rt.kind) {
      case 'healthz':
        return { code: 200, body: 'ok' };
      case 'groupList':
        return { code: 200, body: apiGroupList() };
      case 'group':
        return { code: 200, body: apiGroup() };
      case 'resourceList':
        return { code: 200, body: apiResourceList() };
      case 'sync':
        // accessFor always asks credentials of /sync; without a user it is a bug, not a request.
        if (user === undefined) return apiError(500, 'internal error: /sync reached without a user');
        return this.#sync(rt, req, user);
      case 'health': {
        const release = await this.#release(rt);
        if (isApiError(release)) return release;
        const inventory = (
          await readInventoryParts(this.#d.client, { namespace: rt.namespace, name: rt.name })
        )?.inventory;
        return { code: 200, body: healthResult(release, inventory) };
      }
      case 'history': {
        const release = await this.#release(rt);
        if (isApiError(release)) return release;
        return { code: 200, body: historyResult(release, await this.#d.store.list(rt.namespace, rt.name)) };
      }
      case 'render': {
        const release = await this.#release(rt);
        if (isApiError(release)) return release;
        const render = await this.#d.store.get(rt.namespace, rt.name, rt.renderRef);
        if (render === undefined) {
          return apiError(
            404,
            `render ${rt.renderRef} of release ${rt.namespace}/${rt.name} is not in the render store`,
          );
        }
        return { code: 200, body: renderResult(release, rt.renderRef, render, rt.showSecrets === true) };
      }
      default:
        return assertNever(rt);
    }
  }

  async #sync(rt: Extract<Route, { kind: 'sync' }>, req: IncomingMessage, user: UserInfo): Promise<Reply> {
    const contentType = req.headers['content-type'];
    if (contentType !== undefined && !/^application\/json\s*(;|$)/i.test(contentType)) {
      return apiError(415, `unsupported Content-Type ${JSON.stringify(contentType)}: send application/json`);
    }
    const text = await readBody(req);
    if (isApiError(text)) return text;
    const body = parseSyncBody(text);
    if (!body.ok) return body.error;
    const by = { kind: 'user', username: user.username } as const;
    const done = await writeSync(this.#d.client, rt, body.value, this.#d.now, by, this.#d.events);
    if (!done.ok) return done.error;
    this.#d.log?.info(
      { release: `${rt.namespace}/${rt.name}`, by: user.username, ...done.set },
      'sync requested',
    );
    return {
      code: 200,
      body: {
        apiVersion: GROUP_VERSION,
        kind: RESPONSE_KINDS.sync,
        metadata: { namespace: rt.namespace, name: rt.name },
        ...done.set,
      },
    };
  }

  async #release(ref: { readonly namespace: string; readonly name: string }): Promise<Release | ApiError> {
    return getRelease(this.#d.client, ref);
  }
}

function readBody(req: IncomingMessage): Promise<string | ApiError> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(c);
    });
    req.on('end', () =>
      resolve(
        tooLarge
          ? apiError(413, `request body over ${MAX_BODY_BYTES} bytes`)
          : Buffer.concat(chunks).toString('utf8'),
      ),
    );
    req.on('error', reject);
  });
}

/** Failures of the server's own calls: the Kubernetes API's answer, or an unreachable API. */
function toApiError(err: unknown): ApiError {
  if (err instanceof RenderStoreCorruptError) return apiError(500, err.message);
  if (isKubeError(err)) {
    if (err.code === 401 || err.code === 403) {
      return apiError(500, `convoy-api's own credentials were refused by the Kubernetes API: ${err.message}`);
    }
    if (err.code === 409)
      return apiError(409, `the Release kept changing while /sync wrote it; retry: ${err.message}`);
    return apiError(err.code >= 500 ? 503 : 500, err.message);
  }
  return apiError(503, `the Kubernetes API could not be reached: ${(err as Error)?.message ?? String(err)}`);
}

function send(res: ServerResponse, reply: Reply): void {
  const body = 'reason' in reply ? statusBody(reply) : reply.body;
  const isText = typeof body === 'string';
  const text = isText ? body : `${JSON.stringify(body)}\n`;
  const headers: Record<string, string> = {
    'Content-Type': isText ? 'text/plain; charset=utf-8' : 'application/json',
    'Cache-Control': 'no-store',
  };
  if ('allow' in reply && reply.allow !== undefined) headers.Allow = reply.allow.join(', ');
  res.writeHead(reply.code, headers);
  res.end(text);
}
