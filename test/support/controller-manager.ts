// Runs convoy-controller-manager as a child process for e2e tests (a crash test must kill a real
// process): started against a control plane's kubeconfig, stopped with SIGTERM, its JSON log kept for
// assertions and for failure messages.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ManagerProcess {
  readonly proc: ChildProcess;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  log(): string;
  /** Reconciles the release controller has finished, from its /metrics. */
  reconciles(): Promise<number>;
  stop(): Promise<number | string>;
}

export interface ManagerOptions {
  readonly kubeconfigPath: string;
  readonly identity: string;
  readonly gitCacheDir: string;
  readonly leaseNamespace?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly args?: readonly string[];
}

export async function startControllerManager(opts: ManagerOptions): Promise<ManagerProcess> {
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
  await waitFor(
    'convoy-controller-manager ready',
    async () => {
      if (ended) throw new Error(`controller-manager exited early:\n${out.slice(-4000)}`);
      return out.includes('convoy-controller-manager ready');
    },
    { timeoutMs: 60_000 },
  );
  return {
    proc,
    exited,
    log: () => out,
    async reconciles() {
      const m = /"probePort":(\d+)[^\n]*convoy-controller-manager ready/.exec(out);
      if (m === null) throw new Error('probe port not logged');
      const text = await (await fetch(`http://127.0.0.1:${m[1]}/metrics`)).text();
      let n = 0;
      for (const line of text.split('\n')) {
        if (
          line.startsWith('convoy_reconcile_duration_seconds_count{') &&
          line.includes('controller="release"')
        ) {
          n += Number(line.slice(line.lastIndexOf(' ') + 1));
        }
      }
      return n;
    },
    async stop() {
      if (!ended) proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
