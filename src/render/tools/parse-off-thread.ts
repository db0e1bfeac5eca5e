// Parsing a tool's output off the event loop. YAML parsing is the slow part of a render: a 50 MB helm
// output blocked the event loop for 8 s and left the process at 2 GiB of RSS, while its other
// Releases, its shard Leases and /healthz waited (docs/design.md#large-renders). Output above
// OFF_THREAD_MIN_BYTES is parsed by a child process (parse-child.ts) with a heap limit of its own
// and the tool's time limit, killed on abort. A worker thread measured as responsive, but the memory
// of each parse stayed in the process (RSS +100 MiB a render); a child's leaves with it. Manifests
// come back in batches, each deserialised in a short task of its own.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { assertNever } from '../../lib/assert-never.ts';
import { errorMessage } from '../../lib/errors.ts';
import type { RenderResult } from '../renderer.ts';
import { fail, ok } from '../result.ts';
import type { Manifest } from '../types.ts';
import type { ToolInfo } from './output.ts';
import { type ParseAsk, type ParseJob, type ParseReply, runParseJob } from './parse-job.ts';

/** Smaller output is parsed inline: ~256 KiB of dense YAML parses in about 0.1 s, a process costs more. */
export const OFF_THREAD_MIN_BYTES = 256 * 1024;

export type ParseLimits = {
  /** The tool's name, for messages ("helm"). */
  readonly tool: string;
  /** Where a problem of the parse itself is located (the output's origin, "helm template"). */
  readonly where: string;
  readonly timeoutMs: number;
  /** The child's old generation, in MiB. */
  readonly maxHeapMb: number;
  readonly signal?: AbortSignal;
  /** Output at least this large goes to a child (default OFF_THREAD_MIN_BYTES). */
  readonly minBytes?: number;
  /** About how many bytes of manifests one message carries (default 1 MiB). */
  readonly batchBytes?: number;
};

/** The child's heap limit for an output of `bytes`: room for the text, the manifests and the parser. */
export function parseHeapMb(bytes: number): number {
  return Math.max(256, Math.ceil((bytes * 8) / 2 ** 20));
}

/** A tool's limits applied to parsing its output of `bytes`: its time limit, a heap for the size. */
export function parseLimits(
  tool: ToolInfo,
  where: string,
  bytes: number,
  signal: AbortSignal | undefined,
): ParseLimits {
  return {
    tool: tool.name,
    where,
    timeoutMs: tool.timeoutMs,
    maxHeapMb: parseHeapMb(bytes),
    ...(signal === undefined ? {} : { signal }),
  };
}

// In a bundle import.meta.url still names this source file (src/cli/bundle.ts), so the child runs
// from the sources beside it.
const CHILD = fileURLToPath(new URL('./parse-child.ts', import.meta.url));

/** The manifests of `output`, parsed as `job` says; inline when small, else in a child process. */
export async function parseToolOutput(
  job: ParseJob,
  output: Buffer,
  limits: ParseLimits,
): Promise<RenderResult> {
  if (output.length < (limits.minBytes ?? OFF_THREAD_MIN_BYTES)) {
    return runParseJob(job, output);
  }
  if (!(await children.acquire(limits.signal))) return cancelled(limits);
  try {
    return await parseInChild(job, output, limits);
  } finally {
    children.release();
  }
}

/**
 * Parse children running at once in this process: each may take 8 times its output in memory, so ten
 * Releases rendering 50 MB at once would otherwise need 4 GiB. The others wait for a turn (an abort
 * still ends the wait).
 */
export const MAX_PARSE_CHILDREN = 2;

class Turns {
  running = 0;
  readonly #waiting: (() => void)[] = [];
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** True once it is this caller's turn; false when `signal` aborted first. */
  acquire(signal: AbortSignal | undefined): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.running < this.#max) {
      this.running++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const go = () => {
        signal?.removeEventListener('abort', onAbort);
        this.running++;
        resolve(true);
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(go);
        if (i >= 0) this.#waiting.splice(i, 1);
        resolve(false);
      };
      this.#waiting.push(go);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  release(): void {
    this.running--;
    this.#waiting.shift()?.();
  }
}

const children = new Turns(MAX_PARSE_CHILDREN);

/** Parse children running now, and parses waiting for one (tests). */
export function parseChildren(): { readonly running: number; readonly waiting: number } {
  return { running: children.running, waiting: children.waiting };
}

function cancelled(limits: ParseLimits): RenderResult {
  return fail([{ where: limits.where, message: `${limits.tool} was stopped: the reconcile was cancelled` }]);
}

function parseInChild(job: ParseJob, output: Buffer, limits: ParseLimits): Promise<RenderResult> {
  const { tool, where, signal } = limits;
  const size = mib(output.length);
  const problem = (message: string): RenderResult => fail([{ where, message }]);
  if (signal?.aborted) return Promise.resolve(cancelled(limits));
  return new Promise((resolve) => {
    const manifests: Manifest[] = [];
    let settled = false;
    let stderr = '';
    const child: ChildProcess = fork(CHILD, [], {
      execArgv: [`--max-old-space-size=${limits.maxHeapMb}`, '--max-semi-space-size=8'],
      // Nothing of the controller's environment: the child reads only what it is sent.
      env: {},
      serialization: 'advanced',
      stdio: ['pipe', 'ignore', 'pipe', 'ipc'],
    });
    // The output through a pipe, not a message: no serialised copy of it in either process. A child
    // that died early closes the pipe (EPIPE); its exit says what happened.
    child.stdin?.on('error', () => {});
    child.stdin?.end(output);
    const ask = (m: ParseAsk) => {
      if (!settled && child.connected) child.send(m);
    };
    const settle = (out: RenderResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      resolve(out);
    };
    const timer = setTimeout(
      () =>
        settle(problem(`parsing ${tool}'s output (${size}) was stopped after ${limits.timeoutMs / 1000} s`)),
      limits.timeoutMs,
    );
    const onAbort = () => settle(cancelled(limits));
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stderr?.on('data', (b: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += b.toString('utf8');
    });
    child.on('message', (m: ParseReply) => {
      switch (m.type) {
        case 'batch':
          for (const x of m.manifests) manifests.push(x);
          // The next batch after whatever else is waiting on the event loop.
          setImmediate(() => ask({ type: 'more' }));
          return;
        case 'done':
          settle(ok(manifests));
          return;
        case 'failed':
          settle(fail(m.problems));
          return;
        default:
          assertNever(m);
      }
    });
    child.on('error', (err) => settle(problem(`parsing ${tool}'s output failed: ${errorMessage(err)}`)));
    // 'close', not 'exit': it comes after the last message and the whole of stderr were read.
    child.on('close', (code, sig) =>
      settle(
        problem(
          /heap out of memory|allocation failed/i.test(stderr)
            ? `parsing ${tool}'s output (${size}) needed more than its ${limits.maxHeapMb} MiB of memory`
            : `parsing ${tool}'s output failed: its process exited (${sig ?? `code ${code}`})`,
        ),
      ),
    );
    ask({ type: 'parse', job, batchBytes: limits.batchBytes ?? 2 ** 20 });
  });
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}
