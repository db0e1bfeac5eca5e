// Runs convoy-observer as a child process for e2e tests, its wake-ups sent through the controller-
// manager's HTTP API: straight to its URL (syncVia(manager)) or through kube-apiserver's aggregation
// layer. The annotation mode exists for clusters without the API and is chosen only explicitly.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ManagerProcess } from './controller-manager.ts';
import { metricValue, probePortOf, scrape } from './metrics.ts';
import { waitFor } from './wait.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const READY = 'convoy-observer ready';

export type ObserverSync =
  | { readonly kind: 'direct'; readonly url: string; readonly caFile: string }
  | { readonly kind: 'aggregated' }
  | { readonly kind: 'annotation' };

/** Wake-ups straight to this controller-manager's API. */
export function syncVia(manager: ManagerProcess): ObserverSync {
  if (manager.api === undefined) throw new Error('the controller-manager runs without its HTTP API');
  return { kind: 'direct', url: manager.api.url, caFile: manager.api.caFile };
}

export function syncArgs(sync: ObserverSync): string[] {
  switch (sync.kind) {
    case 'direct':
      return ['--sync-api-url', sync.url, '--sync-api-ca-file', sync.caFile];
    case 'aggregated':
      return [];
    case 'annotation':
      return ['--sync-mode', 'annotation'];
  }
}

export interface ObserverOptions {
  readonly kubeconfigPath: string;
  readonly sync: ObserverSync;
  readonly leaseNamespace?: string;
  readonly leaseSeconds?: number;
  readonly args?: readonly string[];
}

export interface ObserverProcess {
  readonly proc: ChildProcess;
  readonly exited: Promise<number | string>;
  log(): string;
  /** Its /metrics text, and one metric's sum. */
  metrics(): Promise<string>;
  metric(name: string, labels?: Readonly<Record<string, string>>): Promise<number>;
  /** SIGKILL: the shard Lease is not released and must expire by itself. */
  kill(): Promise<number | string>;
  stop(): Promise<number | string>;
}

export async function startObserver(opts: ObserverOptions): Promise<ObserverProcess> {
  const proc = spawn(
    process.execPath,
    [
      'src/cmd/observer.ts',
      '--kubeconfig',
      opts.kubeconfigPath,
      '--lease-namespace',
      opts.leaseNamespace ?? 'convoy-system',
      '--lease-seconds',
      String(opts.leaseSeconds ?? 5),
      '--metrics-port',
      '0',
      ...syncArgs(opts.sync),
      ...(opts.args ?? []),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
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
    }
  };
  try {
    await waitFor(
      READY,
      async () => {
        if (ended) throw new Error(`convoy-observer exited early:\n${out.slice(-4000)}`);
        return out.includes(READY);
      },
      { timeoutMs: 60_000 },
    );
  } catch (err) {
    await end('SIGKILL');
    throw err;
  }
  const metrics = () => scrape(probePortOf(out, READY));
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
