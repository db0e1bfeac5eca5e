// For e2e tests: runs the convoy CLI as a child process (the way users and CI run it) and collects
// its output; `start` keeps it running (watch) so the test can change the cluster meanwhile.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CONVOY_ENTRY = 'src/cmd/convoy.ts';
export const CONVOY_LAUNCHER = fileURLToPath(new URL('../../bin/convoy', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly env?: Readonly<Record<string, string>>;
  /** Written to stdin, which is then closed (stdin is a pipe, never a terminal). */
  readonly stdin?: string;
  /** Run this program instead of `node src/cmd/convoy.ts` (e.g. kubectl for the plugin). */
  readonly command?: readonly string[];
}

export interface RunningCli {
  readonly proc: ChildProcess;
  stdout(): string;
  stderr(): string;
  readonly done: Promise<CliResult>;
}

export function startConvoy(args: readonly string[], opts: RunOptions = {}): RunningCli {
  const [cmd, ...pre] = opts.command ?? [process.execPath, CONVOY_ENTRY];
  const proc = spawn(cmd as string, [...pre, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '', ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout?.on('data', (b: Buffer) => {
    out += b.toString();
  });
  proc.stderr?.on('data', (b: Buffer) => {
    err += b.toString();
  });
  if (opts.stdin !== undefined) proc.stdin?.write(opts.stdin);
  proc.stdin?.end();
  const done = new Promise<CliResult>((resolve, reject) => {
    proc.on('error', reject);
    proc.on('close', (code) => resolve({ code, stdout: out, stderr: err }));
  });
  return { proc, stdout: () => out, stderr: () => err, done };
}

export function runConvoy(args: readonly string[], opts: RunOptions = {}): Promise<CliResult> {
  return startConvoy(args, opts).done;
}
