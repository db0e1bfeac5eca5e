// The bounded process runner every tool convoy runs goes through (git today; helm and kustomize next):
// an argument vector (never a shell string), a total time limit, an idle limit (no output for too long),
// an abort signal and caps on output. The command runs in a process group of its own (spawned detached),
// and any failure kills the whole group, so helpers it started (`git remote-http`, ssh, a plugin) never
// outlive it as orphans.
import { spawn } from 'node:child_process';
import { describeExecFailure, type ExecFailure } from './failure.ts';

export type { ExecFailure };
export { describeExecFailure };

export type ExecOptions = {
  /** The program, looked up on PATH. */
  readonly command: string;
  readonly args: readonly string[];
  /** The whole environment of the command (nothing of the parent's is added). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Written to stdin, which is then closed. */
  readonly input?: Uint8Array;
  /** Aborting kills the process group; the run rejects with failure `aborted`. */
  readonly signal?: AbortSignal;
  /** Wall-clock limit of the whole run. */
  readonly timeoutMs: number;
  /** Kill when neither stdout nor stderr gave a byte for this long. Default: no idle limit. */
  readonly idleMs?: number;
  /** Default 64 MiB: more stdout kills the command (failure `output`). */
  readonly maxStdoutBytes?: number;
  /** stderr kept for messages (its first bytes). Default 64 KiB; more is read and dropped. */
  readonly maxStderrBytes?: number;
};

export type ExecResult = { readonly stdout: Buffer; readonly stderr: string };

/** A run that did not end with exit status 0; `failure` says how, `stderr` what the command said. */
export class ExecError extends Error {
  override readonly name: string = 'ExecError';
  readonly failure: ExecFailure;
  readonly stderr: string;
  constructor(command: string, failure: ExecFailure, stderr: string) {
    super(describeExecFailure(command, failure));
    this.failure = failure;
    this.stderr = stderr;
  }
}

const DEFAULT_MAX_STDOUT = 64 * 1024 * 1024;
const DEFAULT_MAX_STDERR = 64 * 1024;

/** Runs the command to its end; rejects with ExecError unless it exits 0 within every limit. */
export function runBounded(opts: ExecOptions): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const { command } = opts;
    if (opts.signal?.aborted) {
      reject(new ExecError(command, { kind: 'aborted', reason: reasonText(opts.signal.reason) }, ''));
      return;
    }
    const child = spawn(command, opts.args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // A process group of its own: killGroup reaches every process the command started.
      detached: true,
    });
    const maxOut = opts.maxStdoutBytes ?? DEFAULT_MAX_STDOUT;
    const maxErr = opts.maxStderrBytes ?? DEFAULT_MAX_STDERR;
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let failure: ExecFailure | undefined;
    let idle: NodeJS.Timeout | undefined;

    const fail = (f: ExecFailure) => {
      failure ??= f;
      killGroup(child.pid);
    };
    const total = setTimeout(() => fail({ kind: 'timeout', timeoutMs: opts.timeoutMs }), opts.timeoutMs);
    const armIdle = () => {
      if (opts.idleMs === undefined) return;
      clearTimeout(idle);
      const idleMs = opts.idleMs;
      idle = setTimeout(() => fail({ kind: 'idle', idleMs }), idleMs);
    };
    const onAbort = () => fail({ kind: 'aborted', reason: reasonText(opts.signal?.reason) });
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    armIdle();

    child.stdout.on('data', (b: Buffer) => {
      armIdle();
      outBytes += b.length;
      if (outBytes > maxOut) {
        fail({ kind: 'output', maxBytes: maxOut });
        return;
      }
      out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      armIdle();
      if (err.length < maxErr) err += b.toString('utf8').slice(0, maxErr - err.length);
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      failure ??=
        e.code === 'ENOENT' ? { kind: 'notFound' } : { kind: 'spawn', message: e.message ?? String(e) };
    });
    // The command may exit before reading all its input (e.g. on a bad argument): ignore EPIPE here,
    // the exit status tells what happened.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? null);
    child.on('close', (code, signal) => {
      clearTimeout(total);
      clearTimeout(idle);
      opts.signal?.removeEventListener('abort', onAbort);
      if (failure === undefined && code === 0) {
        resolve({ stdout: Buffer.concat(out), stderr: err });
        return;
      }
      reject(new ExecError(command, failure ?? { kind: 'exit', code, signal }, err));
    });
  });
}

/** SIGKILL to the process group led by pid; a group already gone is fine. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

function reasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.name === 'AbortError' ? 'aborted' : reason.message;
  return reason === undefined ? 'aborted' : String(reason);
}
