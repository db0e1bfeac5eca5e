// runCommand: one child process with a deadline, for tests that run what a user would type (doc
// blocks, kubectl). Output is stdout and stderr interleaved; past the deadline the whole process group
// is killed, so a block that waits forever fails instead of hanging the suite.
import { spawn } from 'node:child_process';

export interface CommandResult {
  readonly code: number | null;
  readonly out: string;
}

export interface CommandOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly input?: string;
  readonly timeoutMs: number;
}

export function runCommand(
  cmd: string,
  args: readonly string[],
  opts: CommandOptions,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    const collect = (b: Buffer) => {
      out += b.toString();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      out += `\n[killed after ${Math.round(opts.timeoutMs / 1000)} s]`;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, opts.timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
    // A command may exit without reading its input: EPIPE means only that; other errors go into the output.
    child.stdin.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') out += `\n[stdin: ${err.message}]`;
    });
    child.stdin.end(opts.input ?? '');
  });
}
