// Running a render tool (helm, kustomize) bounded: an argument vector (never a shell), a time limit,
// the whole process group killed when it passes or the caller aborts (a tool's own children die with
// it), and caps on what it may print. The renderers see only ToolRunner, so a shared bounded-process
// runner can take this one's place without touching them.
import { spawn } from 'node:child_process';

export type ToolRun = {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly maxStdoutBytes: number;
  readonly signal?: AbortSignal;
};

export type ToolOutcome =
  | { readonly kind: 'exited'; readonly code: number; readonly stdout: string; readonly stderr: string }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'timed-out'; readonly stderr: string }
  | { readonly kind: 'too-much-output'; readonly stderr: string }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'failed'; readonly message: string };

export type ToolRunner = (run: ToolRun) => Promise<ToolOutcome>;

const MAX_STDERR = 64 * 1024;

export const runTool: ToolRunner = (run) =>
  new Promise((resolve) => {
    if (run.signal?.aborted) {
      resolve({ kind: 'aborted' });
      return;
    }
    const child = spawn(run.command, [...run.args], {
      cwd: run.cwd,
      env: run.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, so killGroup reaches whatever it started
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let ended: ToolOutcome | undefined;
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const end = (o: ToolOutcome) => {
      ended ??= o;
      killGroup();
    };
    const timer = setTimeout(() => end({ kind: 'timed-out', stderr: err }), run.timeoutMs);
    const onAbort = () => end({ kind: 'aborted' });
    run.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (b: Buffer) => {
      outBytes += b.length;
      if (outBytes > run.maxStdoutBytes) {
        end({ kind: 'too-much-output', stderr: err });
        return;
      }
      out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      if (err.length < MAX_STDERR) err += b.toString('utf8');
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      ended ??= e.code === 'ENOENT' ? { kind: 'not-found' } : { kind: 'failed', message: e.message };
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      // The tool exited but may have left children behind in its group.
      killGroup();
      resolve(
        ended ?? {
          kind: 'exited',
          code: code ?? (signal === null ? 1 : 128),
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: err,
        },
      );
    });
  });
