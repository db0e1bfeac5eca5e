// The controller-manager's HTTP API as a running part of the process: the serving certificate made or
// read once, the server started on the bind address, and the front-proxy (requestheader) settings taken
// from kube-system/extension-apiserver-authentication. Those may be published after the process starts
// (or never, on a cluster without an aggregation layer), so the server first serves bearer tokens only
// and is restarted on the same port, with the same certificate, once the settings appear.
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  type ApiMetrics,
  type ApiServer,
  loadRequestHeaderConfig,
  parseRequestHeaderConfigMap,
  type RequestHeaderConfig,
  selfSignedCert,
  startApiServer,
  type TlsSource,
} from '../server/index.ts';
import type { ApiOptions, ApiRequestHeader } from './api-flags.ts';
import { uiHandler } from './ui-backend.ts';

export interface RunningApi {
  /** https://host:port (0.0.0.0 shown as 127.0.0.1). */
  readonly url: string;
  readonly port: number;
  /** The serving certificate (PEM): what a client of a self-signed server must trust. */
  readonly cert: string;
  stop(): Promise<void>;
}

export interface ApiDeps {
  /** The process's own credentials: reviews, Release reads, the /sync apply. */
  readonly kubeConfig: KubeConfig;
  readonly log: Logger;
  readonly metrics: ApiMetrics;
  /** How long the first read of the front-proxy settings may delay serving (default 3 s). */
  readonly firstReadTimeoutMs?: number;
  /** Re-read delays while the settings are missing: doubling from minMs up to maxMs (1 s … 30 s). */
  readonly retry?: { readonly minMs: number; readonly maxMs: number };
}

type Serve = Extract<ApiOptions, { kind: 'serve' }>;

/** What the log says about requestheader; never the CA itself. */
type RequestHeaderState = 'files' | 'cluster' | 'waiting for the cluster' | 'none';

export async function startApi(opts: Serve, deps: ApiDeps): Promise<RunningApi> {
  const log = deps.log;
  const { tls, cleanup } = await servingCert(opts);
  // One UI for every (re)start of the server: its sessions outlive a restart.
  const ui = opts.ui === true ? uiHandler(deps.kubeConfig) : undefined;
  const start = (requestHeader: RequestHeaderConfig | undefined, port: number) =>
    startApiServer({
      kubeConfig: deps.kubeConfig,
      tls,
      host: opts.host,
      port,
      authCacheTtlMs: opts.authCacheTtlMs,
      log,
      metrics: deps.metrics,
      ...(requestHeader === undefined ? {} : { requestHeader }),
      followClusterRequestHeader: opts.requestHeader.kind === 'fromCluster',
      ...(ui === undefined ? {} : { ui }),
    });
  const announce = (s: ApiServer, requestHeader: RequestHeaderState, msg: string) =>
    log.info(
      {
        url: s.url,
        tls: opts.tls.kind,
        certSha256: new X509Certificate(s.cert).fingerprint256,
        requestHeader,
      },
      msg,
    );

  let server: ApiServer;
  let pending: RequestHeaderState;
  try {
    const first = await initialRequestHeader(opts.requestHeader, deps, log);
    server = await start(first.config, opts.port);
    pending = first.state;
  } catch (err) {
    await cleanup();
    throw err;
  }
  announce(server, pending, 'HTTP API serving');

  const stopping = new AbortController();
  // Only while the settings are awaited: one background loop, then the restart.
  const upgraded =
    pending === 'waiting for the cluster'
      ? waitForRequestHeader(deps, stopping.signal).then(async (config) => {
          if (config === undefined) return;
          server = await restart(server, () => start(config, server.port), stopping.signal, log);
          if (!stopping.signal.aborted) {
            announce(
              server,
              'cluster',
              'HTTP API restarted with the front-proxy settings the cluster published',
            );
          }
        })
      : Promise.resolve();
  upgraded.catch((err: unknown) =>
    log.error({ err: String(err) }, 'HTTP API: front-proxy settings not applied'),
  );

  return {
    get url() {
      return server.url;
    },
    get port() {
      return server.port;
    },
    get cert() {
      return server.cert;
    },
    async stop() {
      stopping.abort();
      await upgraded.catch(() => undefined);
      await server.close();
      await ui?.close();
      await cleanup();
      log.info('HTTP API stopped');
    },
  };
}

/** The TlsSource every (re)start uses: files as given, or a self-signed pair made once and kept in a private temp dir. */
async function servingCert(opts: Serve): Promise<{ tls: TlsSource; cleanup: () => Promise<void> }> {
  switch (opts.tls.kind) {
    case 'files':
      return { tls: opts.tls, cleanup: async () => undefined };
    case 'devSelfSigned': {
      const pair = await selfSignedCert(opts.tls.hosts);
      const dir = await mkdtemp(join(tmpdir(), 'convoy-api-serving-'));
      const certFile = join(dir, 'tls.crt');
      const keyFile = join(dir, 'tls.key');
      await writeFile(certFile, pair.cert);
      await writeFile(keyFile, pair.key, { mode: 0o600 });
      return {
        tls: { kind: 'files', certFile, keyFile },
        cleanup: () => rm(dir, { recursive: true, force: true }),
      };
    }
  }
}

async function initialRequestHeader(
  rh: ApiRequestHeader,
  deps: ApiDeps,
  log: Logger,
): Promise<{ config: RequestHeaderConfig | undefined; state: RequestHeaderState }> {
  switch (rh.kind) {
    case 'none':
      return { config: undefined, state: 'none' };
    case 'files': {
      const parsed = parseRequestHeaderConfigMap({
        'requestheader-client-ca-file': await readFile(rh.clientCaFile, 'utf8'),
        'requestheader-allowed-names': JSON.stringify(rh.allowedNames),
      });
      if (!parsed.ok || parsed.value === undefined) {
        throw new Error(`--api-requestheader-client-ca-file ${rh.clientCaFile}: no CA certificate in it`);
      }
      return { config: parsed.value, state: 'files' };
    }
    case 'fromCluster': {
      const timeoutMs = deps.firstReadTimeoutMs ?? 3000;
      const first = await Promise.race([
        loadRequestHeaderConfig(deps.kubeConfig).then(
          (config) => ({ config, err: undefined }),
          (err: unknown) => ({ config: undefined, err }),
        ),
        sleep(timeoutMs, { config: undefined, err: new Error(`no answer within ${timeoutMs} ms`) }),
      ]);
      if (first.config !== undefined) return { config: first.config, state: 'cluster' };
      log.info(
        { reason: first.err === undefined ? 'not published' : String(first.err) },
        'HTTP API: no front-proxy settings in kube-system/extension-apiserver-authentication yet; serving bearer tokens only until they appear',
      );
      return { config: undefined, state: 'waiting for the cluster' };
    }
  }
}

/** Re-reads the settings with capped doubling delays until they are there; undefined once stopped. */
async function waitForRequestHeader(
  deps: ApiDeps,
  signal: AbortSignal,
): Promise<RequestHeaderConfig | undefined> {
  const { minMs, maxMs } = deps.retry ?? { minMs: 1000, maxMs: 30_000 };
  let lastError = '';
  for (let delay = minMs; ; delay = Math.min(delay * 2, maxMs)) {
    try {
      await sleep(delay, undefined, { signal });
    } catch {
      return undefined;
    }
    try {
      const config = await loadRequestHeaderConfig(deps.kubeConfig);
      if (config !== undefined) return config;
    } catch (err) {
      // Logged once per distinct failure (e.g. RBAC not granted yet), not on every retry.
      const msg = String(err);
      if (msg !== lastError)
        deps.log.warn({ err: msg }, 'HTTP API: reading the front-proxy settings failed; retrying');
      lastError = msg;
    }
  }
}

/** Closes the server and starts its replacement on the same port; a failed listen is retried. */
async function restart(
  old: ApiServer,
  startNew: () => Promise<ApiServer>,
  signal: AbortSignal,
  log: Logger,
): Promise<ApiServer> {
  if (signal.aborted) return old;
  await old.close();
  for (let delay = 100; ; delay = Math.min(delay * 2, 5000)) {
    try {
      return await startNew();
    } catch (err) {
      if (signal.aborted) return old;
      log.error({ err: String(err) }, 'HTTP API: restarting the server failed; retrying');
      await sleep(delay);
    }
  }
}
