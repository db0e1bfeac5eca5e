// convoy-controller-manager and convoy-observer as child processes for e2e tests (a crash or a lost
// Lease must be a real process going away): started against a control plane's kubeconfig with the same
// flags both processes share, ready once they log so, their output kept for assertions and failure
// messages, their /metrics read from the probe port they logged, stopped with SIGTERM (or killed).
// The controller-manager's HTTP API runs on a free loopback port with a self-signed certificate unless
// told otherwise; the observer always wakes it through that API — straight to the URL of the
// controller-manager it is paired with (wakeupsTo), or through kube-apiserver's aggregation layer when
// the test has registered the APIService.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ProcessName, processScript } from '../../src/cli/bundled.ts';
import type { Tenancy } from '../../src/controller/release/act/target.ts';
import { PROCESS_NODE_FLAGS } from '../../src/runtime/node-flags.ts';
import { ensureTools } from '../../src/testenv/tools.ts';
import { metricValue, probePortOf, scrape } from './metrics.ts';
import { makeServingCert, presentedCert, type ServingCert } from './serving-cert.ts';
import { waitFor } from './wait.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MANAGER_READY = 'convoy-controller-manager ready';
const OBSERVER_READY = 'convoy-observer ready';

/** What both processes take, with the values tests want: short Leases, any free probe port. */
export interface CommonOptions {
  readonly kubeconfigPath: string;
  /** --identity (default: the process's own, <hostname>-<pid>). */
  readonly identity?: string;
  /** Default convoy-system. */
  readonly leaseNamespace?: string;
  /** --lease-duration, a Go duration (default 5s). */
  readonly leaseDuration?: string;
  /** Added to the test process's environment (e.g. NODE_OPTIONS with a preload). */
  readonly env?: Readonly<Record<string, string>>;
  /** More flags, after the ones set here. */
  readonly args?: readonly string[];
  /** How long the process may take to log its ready line (default 60 s). */
  readonly readyTimeoutMs?: number;
}

export interface ConvoyChild {
  readonly proc: ChildProcess;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  /** Its stdout and stderr so far. */
  log(): string;
  /** Its /metrics text, and the sum of one metric's samples carrying `labels`. */
  metrics(): Promise<string>;
  metric(name: string, labels?: Readonly<Record<string, string>>): Promise<number>;
  /** SIGKILL: its Leases are not released and must expire by themselves. */
  kill(): Promise<number | string>;
  /** SIGTERM (SIGKILL after 15 s); idempotent. */
  stop(): Promise<number | string>;
}

function commonArgs(o: CommonOptions): string[] {
  return [
    '--kubeconfig',
    o.kubeconfigPath,
    '--metrics-bind-address',
    '127.0.0.1:0',
    '--lease-namespace',
    o.leaseNamespace ?? 'convoy-system',
    '--lease-duration',
    o.leaseDuration ?? '5s',
    ...(o.identity === undefined ? [] : ['--identity', o.identity]),
  ];
}

/** Spawns an entry point and waits for its ready line; `cleanup` runs once it has exited. */
async function startChild(
  name: ProcessName,
  args: readonly string[],
  opts: CommonOptions,
  ready: string,
  cleanup: () => Promise<void> = async () => {},
): Promise<ConvoyChild> {
  const script = processScript(ROOT, name);
  const proc = spawn(process.execPath, [...PROCESS_NODE_FLAGS, script, ...args, ...(opts.args ?? [])], {
    cwd: ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const append = (b: Buffer) => {
    out += b.toString();
  };
  proc.stdout?.on('data', append);
  proc.stderr?.on('data', append);
  let ended = false;
  const exited = new Promise<number | string>((resolve) =>
    proc.on('exit', (code, signal) => {
      ended = true;
      resolve(code ?? signal ?? 'unknown');
    }),
  );
  const end = async (signal: NodeJS.Signals) => {
    if (!ended) proc.kill(signal);
    const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
      await cleanup();
    }
  };
  try {
    await waitFor(
      ready,
      async () => {
        // Ready first: a process told to crash right after its first apply may print it and exit
        // between two polls, and it did become ready.
        if (out.includes(ready)) return true;
        if (ended) throw new Error(`${script} exited early:\n${out.slice(-4000)}`);
        return false;
      },
      { timeoutMs: opts.readyTimeoutMs ?? 60_000 },
    );
  } catch (err) {
    await end('SIGKILL');
    throw err;
  }
  const metrics = () => scrape(probePortOf(out, ready));
  return {
    proc,
    exited,
    log: () => out,
    metrics,
    metric: async (name, labels = {}) => metricValue(await metrics(), name, labels),
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
  };
}

/** The last lines of a controller-manager's and an observer's logs, for assertion messages. */
export function tailLogs(manager: ConvoyChild, observer: ConvoyChild): string {
  return `--- controller-manager ---\n${manager.log().slice(-6000)}\n--- observer ---\n${observer.log().slice(-4000)}`;
}

// --- convoy-controller-manager ----------------------------------------------------------------------

export interface ManagerApi {
  /** https://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  /** PEM the serving certificate chains to (it is self-signed: the certificate itself). */
  readonly caPem: string;
  /** The same PEM in a file, for an observer's --sync-api-ca-file. */
  readonly caFile: string;
}

export type ApiSetup =
  | { readonly kind: 'off' }
  | {
      readonly kind: 'serve';
      /**
       * A certificate to serve (keep one across restarts: whoever trusts the API trusts exactly it), or
       * 'dev-self-signed' for --api-dev-self-signed (the process makes its own; its CA is read off the
       * TLS handshake). Default: a fresh self-signed certificate, removed when the process is stopped.
       */
      readonly tls?: ServingCert | 'dev-self-signed';
      /** Default 0: any free port. */
      readonly port?: number;
      /** --api-requestheader-from-cluster (default true, as in production). */
      readonly requestHeaderFromCluster?: boolean;
    };

export interface ManagerOptions extends CommonOptions {
  readonly gitCacheDir: string;
  /** --tenancy (and --default-service-account): always passed, so no test leans on the default. */
  readonly tenancy: Tenancy;
  /** Default: served, see ApiSetup. */
  readonly api?: ApiSetup;
}

export interface ManagerProcess extends ConvoyChild {
  /** The HTTP API; undefined when started with `api: {kind: 'off'}`. */
  readonly api: ManagerApi | undefined;
  /** Reconciles the release controller has finished, from its /metrics. */
  reconciles(): Promise<number>;
  /**
   * Waits until `n` more reconciles than `since` (default: the count now) have finished, so that later
   * reconciles have seen whatever the test did before.
   */
  moreReconciles(n: number, opts?: { readonly since?: number; readonly timeoutMs?: number }): Promise<void>;
  /** convoy_api_requests_total for one route and status code. */
  apiRequests(route: string, code: number): Promise<number>;
}

export async function startControllerManager(opts: ManagerOptions): Promise<ManagerProcess> {
  const setup: ApiSetup = opts.api ?? { kind: 'serve' };
  const scratch = await mkdtemp(join(tmpdir(), 'convoy-test-manager-'));
  let owned: ServingCert | undefined;
  let tls: ServingCert | 'dev-self-signed' | undefined;
  const cleanup = async () => {
    await owned?.dispose();
    await rm(scratch, { recursive: true, force: true });
  };
  let apiArgs: string[];
  try {
    if (setup.kind === 'off') apiArgs = ['--api-bind-address', 'off'];
    else {
      let serving = setup.tls;
      if (serving === undefined) {
        owned = await makeServingCert();
        serving = owned;
      }
      tls = serving;
      apiArgs = [
        '--api-bind-address',
        `127.0.0.1:${setup.port ?? 0}`,
        ...(serving === 'dev-self-signed'
          ? ['--api-dev-self-signed']
          : ['--api-tls-cert-file', serving.certFile, '--api-tls-key-file', serving.keyFile]),
        `--api-requestheader-from-cluster=${setup.requestHeaderFromCluster ?? true}`,
      ];
    }
  } catch (err) {
    await cleanup();
    throw err;
  }
  let toolArgs: string[];
  try {
    // The real kustomize and helm, built from their Go modules (the first time only).
    const tools = await ensureTools();
    toolArgs = ['--kustomize-binary', join(tools, 'kustomize'), '--helm-binary', join(tools, 'helm')];
  } catch (err) {
    await cleanup();
    throw err;
  }
  const child = await startChild(
    'controller-manager',
    [
      ...commonArgs(opts),
      '--git-cache-dir',
      opts.gitCacheDir,
      '--allow-file-urls',
      ...tenancyArgs(opts.tenancy),
      ...toolArgs,
      ...apiArgs,
    ],
    opts,
    MANAGER_READY,
    cleanup,
  );
  let api: ManagerApi | undefined;
  try {
    if (tls !== undefined) api = await apiOf(child.log(), tls, scratch);
  } catch (err) {
    await child.stop();
    throw err;
  }
  const reconciles = () => child.metric('convoy_reconcile_duration_seconds_count', { controller: 'release' });
  return {
    ...child,
    api,
    reconciles,
    async moreReconciles(n, { since, timeoutMs = 30_000 } = {}) {
      const start = since ?? (await reconciles());
      await waitFor(`${n} more reconciles (after ${start})`, async () => (await reconciles()) >= start + n, {
        timeoutMs,
      });
    },
    apiRequests: (route, code) => child.metric('convoy_api_requests_total', { route, code: String(code) }),
  };
}

function tenancyArgs(t: Tenancy): string[] {
  const args = ['--tenancy', t.mode];
  if (t.mode === 'tenant' && t.defaultServiceAccount !== undefined)
    args.push('--default-service-account', t.defaultServiceAccount);
  return args;
}

async function apiOf(
  log: string,
  tls: ServingCert | 'dev-self-signed',
  scratch: string,
): Promise<ManagerApi> {
  const m = new RegExp(`"apiUrl":"(https://[^"]+)"[^\\n]*${MANAGER_READY}`).exec(log);
  if (m?.[1] === undefined) throw new Error(`the API URL is not in the ready line:\n${log.slice(-2000)}`);
  const url = m[1];
  const port = Number(new URL(url).port);
  if (tls !== 'dev-self-signed') return { url, port, caPem: tls.caPem, caFile: tls.certFile };
  const caPem = await presentedCert('127.0.0.1', port);
  const caFile = join(scratch, 'api-ca.crt');
  await writeFile(caFile, caPem);
  return { url, port, caPem, caFile };
}

// --- convoy-observer --------------------------------------------------------------------------------

/** Where the observer's wake-ups (POST /sync) go: always the HTTP API. */
export type Wakeups =
  /** Straight to an API: --sync-api-url and --sync-api-ca-file. */
  | { readonly kind: 'direct'; readonly url: string; readonly caFile: string }
  /** Through kube-apiserver's aggregation layer (the test registered the APIService). */
  | { readonly kind: 'aggregated' };

/** Wake-ups straight to this controller-manager's API. */
export function wakeupsTo(manager: ManagerProcess): Wakeups {
  if (manager.api === undefined) throw new Error('the controller-manager runs without its HTTP API');
  return { kind: 'direct', url: manager.api.url, caFile: manager.api.caFile };
}

export interface ObserverOptions extends CommonOptions {
  readonly wakeups: Wakeups;
}

export type ObserverProcess = ConvoyChild;

export function startObserver(opts: ObserverOptions): Promise<ObserverProcess> {
  const w = opts.wakeups;
  const sync = w.kind === 'direct' ? ['--sync-api-url', w.url, '--sync-api-ca-file', w.caFile] : [];
  return startChild('observer', [...commonArgs(opts), ...sync], opts, OBSERVER_READY);
}
