// A real Prometheus on a loopback port for the verification tests and `convoy dev`: it scrapes the
// given loopback targets (the traffic simulator, traffic-sim.ts) every second, keeps its TSDB, config
// and log in a temp dir of its own, and dies with its owner like the control plane's processes
// (process group, exit handlers, a watchdog for a SIGKILLed parent; see proc.ts).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorMessage } from '../lib/errors.ts';
import { request } from './http.ts';
import { startOnFreePorts } from './ports.ts';
import { GuardedDir, logTail, type Proc, ProcessExitedError, spawnLogged, stopProc } from './proc.ts';
import { ensurePrometheus } from './prometheus-binary.ts';

export { ensurePrometheus, PROMETHEUS_VERSION } from './prometheus-binary.ts';

export interface PrometheusOptions {
  /** Loopback scrape targets, "127.0.0.1:<port>" (their /metrics). */
  readonly targets?: readonly string[];
  /** Scrape and rule evaluation interval (default 1000 ms). */
  readonly scrapeIntervalMs?: number;
  /** The binary; default ensurePrometheus() (fetches it the first time). */
  readonly binary?: string;
  /** Gives up starting after this long (default 30 s). */
  readonly timeoutMs?: number;
  readonly log?: (line: string) => void;
}

/** One sample of an instant vector. */
export interface PromSample {
  readonly metric: Readonly<Record<string, string>>;
  /** NaN and ±Inf as Prometheus sends them ("NaN", "+Inf"). */
  readonly value: number;
}

export interface TestPrometheus {
  /** "http://127.0.0.1:<port>": the address a prometheus check names. */
  readonly url: string;
  /** The pid of the process started last. */
  readonly pid: number;
  readonly dir: string;
  /** The scrape targets now configured. */
  targets(): readonly string[];
  /** Scrapes one more target: rewrites the config and reloads it (POST /-/reload answers once applied). */
  addTarget(target: string): Promise<void>;
  /** An instant query now: its vector's samples ([] for an empty vector; a scalar is one sample). */
  query(expr: string): Promise<readonly PromSample[]>;
  /** Kills Prometheus with SIGKILL, as a crash would (the port refuses connections); keeps its data. */
  kill(): Promise<void>;
  /** After kill(): starts it again on the same port, config and data; resolves once it is ready. */
  restart(): Promise<void>;
  /** Kills Prometheus (its process group) and removes its dir; safe to call twice. */
  stop(): Promise<void>;
}

export class PrometheusStartError extends Error {
  override name = 'PrometheusStartError';
}

export class PrometheusQueryError extends Error {
  override name = 'PrometheusQueryError';
}

const REQUEST_TIMEOUT_MS = 5000;

export async function startPrometheus(opts: PrometheusOptions = {}): Promise<TestPrometheus> {
  const binary = opts.binary ?? (await ensurePrometheus(opts.log ? { log: opts.log } : {}));
  const intervalMs = opts.scrapeIntervalMs ?? 1000;
  if (!Number.isInteger(intervalMs) || intervalMs < 100) {
    throw new PrometheusStartError(`scrapeIntervalMs must be an integer ≥ 100, got ${intervalMs}`);
  }
  const targets = [...(opts.targets ?? [])];
  const dir = await mkdtemp(join(tmpdir(), 'convoy-prometheus-'));
  const guard = new GuardedDir(dir);
  const config = join(dir, 'prometheus.yml');
  let proc: Proc | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (proc !== undefined) await stopProc(proc);
      guard.release();
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    })();
    return stopping;
  };
  const timeoutMs = opts.timeoutMs ?? 30_000;
  /** Starts Prometheus on `port` over the dir's config and TSDB; resolves once it is ready. */
  const spawnOn = async (port: number, deadline: number): Promise<Proc> => {
    const started = spawnLogged({
      name: 'prometheus',
      command: binary,
      args: [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--web.enable-lifecycle',
        // Debian's defaults point at /etc/prometheus, which is not there without the package.
        `--web.console.templates=${join(dir, 'consoles')}`,
        `--web.console.libraries=${join(dir, 'console_libraries')}`,
      ],
      logPath: join(dir, 'prometheus.log'),
      cwd: dir,
    });
    proc = started;
    guard.record([started]);
    await waitReady(started, `http://127.0.0.1:${port}`, deadline);
    return started;
  };
  try {
    await writeFile(config, prometheusConfig(targets, intervalMs));
    const deadline = Date.now() + timeoutMs;
    return await startOnFreePorts(1, async ([port = 0]) => {
      await spawnOn(port, deadline);
      const url = `http://127.0.0.1:${port}`;
      opts.log?.(`testenv: prometheus up at ${url} scraping ${targets.join(', ') || 'nothing'} (${dir})`);
      // Acting on a stopped Prometheus would leak the new process.
      const unlessStopped =
        <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
        (...args: A) =>
          stopping === undefined ? f(...args) : Promise.reject(new Error('prometheus is stopped'));
      return {
        url,
        get pid() {
          return proc?.pid ?? -1;
        },
        dir,
        targets: () => [...targets],
        addTarget: unlessStopped(async (target: string) => {
          targets.push(target);
          await writeFile(config, prometheusConfig(targets, intervalMs));
          const res = await request({ server: url }, 'POST', '/-/reload', undefined, REQUEST_TIMEOUT_MS);
          if (res.status !== 200) {
            throw new PrometheusQueryError(
              `reloading Prometheus's config answered ${res.status}: ${res.body}`,
            );
          }
        }),
        query: (expr: string) => instantQuery(url, expr),
        kill: unlessStopped(async () => {
          if (proc === undefined || proc.exit !== undefined) throw new Error('prometheus is not running');
          // SIGKILL at once, as a crash: no SIGTERM, no grace period.
          process.kill(-proc.pid, 'SIGKILL');
          await proc.exited;
        }),
        restart: unlessStopped(async () => {
          if (proc?.exit === undefined) throw new Error('prometheus is running: kill it first');
          // A restart gets a budget of its own, as long as a start's.
          await spawnOn(port, Date.now() + timeoutMs);
        }),
        stop,
      };
    });
  } catch (err) {
    await stop();
    if (err instanceof ProcessExitedError) throw new PrometheusStartError(err.message, { cause: err });
    throw err;
  }
}

/** The config: one job, `traffic`, scraping every target at the interval; rules evaluated as often. */
export function prometheusConfig(targets: readonly string[], intervalMs: number): string {
  const every = `${intervalMs}ms`;
  // JSON is YAML: no quoting rules to get wrong. A scrape may take the whole interval, no more.
  return JSON.stringify({
    global: { scrape_interval: every, scrape_timeout: every, evaluation_interval: every },
    scrape_configs: [{ job_name: 'traffic', static_configs: [{ targets: [...targets] }] }],
  });
}

async function waitReady(proc: Proc, url: string, deadline: number): Promise<void> {
  let last = '';
  for (;;) {
    if (proc.exit !== undefined) throw new ProcessExitedError(proc, 'while starting');
    try {
      const res = await request({ server: url }, 'GET', '/-/ready', undefined, 2000);
      if (res.status === 200) return;
      last = `GET /-/ready answered ${res.status}`;
    } catch (err) {
      last = errorMessage(err);
    }
    if (Date.now() > deadline) {
      throw new PrometheusStartError(`Prometheus did not become ready at ${url} (${last})\n${logTail(proc)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface QueryAnswer {
  readonly status?: string;
  readonly error?: string;
  readonly data?: {
    readonly resultType?: string;
    readonly result?: unknown;
  };
}

async function instantQuery(url: string, expr: string): Promise<readonly PromSample[]> {
  const res = await request(
    { server: url },
    'GET',
    `/api/v1/query?${new URLSearchParams({ query: expr })}`,
    undefined,
    REQUEST_TIMEOUT_MS,
  );
  let answer: QueryAnswer;
  try {
    answer = JSON.parse(res.body) as QueryAnswer;
  } catch {
    throw new PrometheusQueryError(
      `query ${expr}: answer ${res.status} is not JSON: ${res.body.slice(0, 200)}`,
    );
  }
  if (res.status !== 200 || answer.status !== 'success') {
    throw new PrometheusQueryError(`query ${expr}: ${res.status} ${answer.error ?? res.body.slice(0, 200)}`);
  }
  const { resultType, result } = answer.data ?? {};
  switch (resultType) {
    case 'vector':
      return (result as { metric: Record<string, string>; value: [number, string] }[]).map((s) => ({
        metric: s.metric,
        value: sampleValue(s.value[1]),
      }));
    case 'scalar':
      return [{ metric: {}, value: sampleValue((result as [number, string])[1]) }];
    default:
      throw new PrometheusQueryError(`query ${expr}: result type ${resultType} is not an instant vector`);
  }
}

/** A sample's value as Prometheus writes it: a float, NaN, +Inf or -Inf. */
export function sampleValue(text: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  return Number(text);
}
