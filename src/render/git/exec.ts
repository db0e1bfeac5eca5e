// Running the git CLI: spawn with an argument vector (never a shell string), a time limit, an abort
// signal and a cap on output, collecting stdout as bytes and stderr as text.
import { spawn } from 'node:child_process';

export class GitCommandError extends Error {
  override readonly name = 'GitCommandError';
  readonly stderr: string;
  constructor(message: string, stderr: string) {
    super(message);
    this.stderr = stderr;
  }
}

export type RunOptions = {
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly input?: Uint8Array;
  readonly signal?: AbortSignal;
  readonly timeoutMs: number;
  readonly maxStdoutBytes?: number;
  readonly git?: string;
};

const MAX_STDERR = 64 * 1024;

export function runGit(
  args: readonly string[],
  opts: RunOptions,
): Promise<{ stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new GitCommandError('aborted', ''));
      return;
    }
    const child = spawn(opts.git ?? 'git', args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(opts.signal === undefined ? {} : { signal: opts.signal }),
      timeout: opts.timeoutMs,
      killSignal: 'SIGKILL',
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let failure: string | undefined;
    child.stdout.on('data', (b: Buffer) => {
      outBytes += b.length;
      if (opts.maxStdoutBytes !== undefined && outBytes > opts.maxStdoutBytes) {
        failure ??= `output exceeds ${opts.maxStdoutBytes} bytes`;
        child.kill('SIGKILL');
        return;
      }
      out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      if (err.length < MAX_STDERR) err += b.toString('utf8');
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (e.name === 'AbortError') failure ??= 'aborted';
      else failure ??= e.code === 'ENOENT' ? 'the git command is not installed' : e.message;
    });
    // git may exit before reading all its input (e.g. on a bad object name): ignore EPIPE here,
    // the exit status tells what happened.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? null);
    child.on('close', (code, signal) => {
      if (failure === undefined && code === 0) {
        resolve({ stdout: Buffer.concat(out), stderr: err });
        return;
      }
      const why =
        failure ??
        (signal === 'SIGKILL'
          ? `timed out after ${opts.timeoutMs / 1000}s`
          : `exit status ${code ?? signal}`);
      reject(new GitCommandError(why, err));
    });
  });
}
