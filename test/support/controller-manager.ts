// Runs convoy-controller-manager as a child process for e2e tests (a crash test must kill a real
// process): started against a control plane's kubeconfig, stopped with SIGTERM, its JSON log kept for
// assertions and for failure messages. Its HTTP API runs on a free loopback port with a self-signed
// certificate unless told otherwise; `api` says where it is and which CA to trust.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { metricValue, probePortOf, scrape } from './metrics.ts';
import { makeServingCert, presentedCert, type ServingCert } from './serving-cert.ts';
import { waitFor } from './wait.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const READY = 'convoy-controller-manager ready';

export interface ManagerApi {
  /** https://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  /** PEM the serving certificate chains to (it is self-signed: the certificate itself). */
  readonly caPem: string;
  /** The same PEM in a file, for an observer's --sync-api-ca-file. */
  readonly caFile: string;
}

export interface ManagerProcess {
  readonly proc: ChildProcess;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  /** The HTTP API; undefined when started with `api: {kind: 'off'}`. */
  readonly api: ManagerApi | undefined;
  log(): string;
  /** Reconciles the release controller has finished, from its /metrics. */
  reconciles(): Promise<number>;
  /** Its /metrics text. */
  metrics(): Promise<string>;
  /** convoy_api_requests_total for one route and status code. */
  apiRequests(route: string, code: number): Promise<number>;
  stop(): Promise<number | string>;
}

export type ApiSetup =
  | { readonly kind: 'off' }
  | {
      readonly kind: 'serve';
      /**
       * A certificate to serve (keep one across restarts: whoever trusts the API trusts exactly it), or
       * 'dev-self-signed' for --api-dev-self-signed (the process makes its own; its CA is read off the
       * TLS handshake). Default: a fresh self-signed certificate, removed on stop().
       */
      readonly tls?: ServingCert | 'dev-self-signed';
      /** Default 0: any free port. */
      readonly port?: number;
      /** --api-requestheader-from-cluster (default true, as in production). */
      readonly requestHeaderFromCluster?: boolean;
    };

export interface ManagerOptions {
  readonly kubeconfigPath: string;
  readonly identity: string;
  readonly gitCacheDir: string;
  readonly leaseNamespace?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly args?: readonly string[];
  readonly api?: ApiSetup;
}

export async function startControllerManager(opts: ManagerOptions): Promise<ManagerProcess> {
  const setup: ApiSetup = opts.api ?? { kind: 'serve' };
  const scratch = await mkdtemp(join(tmpdir(), 'convoy-test-manager-'));
  let owned: ServingCert | undefined;
  let apiArgs: string[];
  let tls: ServingCert | 'dev-self-signed' | undefined;
  if (setup.kind === 'off') {
    apiArgs = ['--api-bind-address', 'off'];
  } else {
    tls = setup.tls;
    if (tls === undefined) {
      owned = await makeServingCert();
      tls = owned;
    }
    apiArgs = [
      '--api-bind-address',
      `127.0.0.1:${setup.port ?? 0}`,
      ...(tls === 'dev-self-signed'
        ? ['--api-dev-self-signed']
        : ['--api-tls-cert-file', tls.certFile, '--api-tls-key-file', tls.keyFile]),
      `--api-requestheader-from-cluster=${setup.requestHeaderFromCluster ?? true}`,
    ];
  }
  const cleanup = async () => {
    await owned?.dispose();
    await rm(scratch, { recursive: true, force: true });
  };
  const proc = spawn(
    process.execPath,
    [
      'src/cmd/controller-manager.ts',
      '--kubeconfig',
      opts.kubeconfigPath,
      '--metrics-port',
      '0',
      '--lease-namespace',
      opts.leaseNamespace ?? 'convoy-system',
      '--lease-duration',
      '5',
      '--identity',
      opts.identity,
      '--git-cache-dir',
      opts.gitCacheDir,
      '--allow-file-urls',
      ...apiArgs,
      ...(opts.args ?? []),
    ],
    { cwd: ROOT, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  proc.stdout?.on('data', (b: Buffer) => {
    out += b.toString();
  });
  proc.stderr?.on('data', (b: Buffer) => {
    out += b.toString();
  });
  const exited = new Promise<number | string>((resolve) =>
    proc.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  const stop = async () => {
    if (!ended) proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
      await cleanup();
    }
  };
  let api: ManagerApi | undefined;
  try {
    await waitFor(
      READY,
      async () => {
        if (ended) throw new Error(`controller-manager exited early:\n${out.slice(-4000)}`);
        return out.includes(READY);
      },
      { timeoutMs: 60_000 },
    );
    if (tls !== undefined) api = await apiOf(out, tls, scratch);
  } catch (err) {
    await stop();
    throw err;
  }
  const metrics = async () => scrape(probePortOf(out, READY));
  return {
    proc,
    exited,
    api,
    log: () => out,
    metrics,
    async reconciles() {
      return metricValue(await metrics(), 'convoy_reconcile_duration_seconds_count', {
        controller: 'release',
      });
    },
    async apiRequests(route, code) {
      return metricValue(await metrics(), 'convoy_api_requests_total', { route, code: String(code) });
    },
    stop,
  };
}

async function apiOf(
  log: string,
  tls: ServingCert | 'dev-self-signed',
  scratch: string,
): Promise<ManagerApi> {
  const m = new RegExp(`"apiUrl":"(https://[^"]+)"[^\\n]*${READY}`).exec(log);
  if (m?.[1] === undefined) throw new Error(`the API URL is not in the ready line:\n${log.slice(-2000)}`);
  const url = m[1];
  const port = Number(new URL(url).port);
  if (tls !== 'dev-self-signed') return { url, port, caPem: tls.caPem, caFile: tls.certFile };
  const caPem = await presentedCert('127.0.0.1', port);
  const caFile = join(scratch, 'api-ca.crt');
  await writeFile(caFile, caPem);
  return { url, port, caPem, caFile };
}
