// A small traffic simulator for verification tests and `convoy dev`: a loopback HTTP server whose
// /metrics (prom-client, its own Registry) counts simulated requests, `http_requests_total{code}` and
// `http_request_duration_seconds`, and the same requests under Istio's names as a sidecar would
// (`istio_requests_total` and `istio_request_duration_milliseconds` by reporter, destination_service and
// response_code), so queries written for a mesh, such as the Argo Rollouts docs' AnalysisTemplates, run
// as they are. At a steady rate with an error share and a latency that a test sets
// in-process or — so that a render can break it and a rollback mend it — a ConfigMap it reads every
// second. The errors are spread exactly (every 1/errorRate-th request), never drawn at random, so a
// test's numbers do not depend on luck.
import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { KubeClient } from '../kube/client.ts';
import { isNotFound } from '../kube/errors.ts';
import { assertNever } from '../lib/assert-never.ts';
import { errorMessage } from '../lib/errors.ts';
import {
  checkTrafficSettings,
  DEFAULT_TRAFFIC,
  readTrafficSettings,
  type TrafficSettings,
} from './traffic-settings.ts';

export { DEFAULT_TRAFFIC, type TrafficSettings } from './traffic-settings.ts';

/** Where the settings come from. */
export type TrafficSource =
  /** set() changes them. */
  | { readonly kind: 'manual'; readonly initial?: TrafficSettings }
  /**
   * The ConfigMap's keys `errorRate` (0–1) and `latencyMs`, read every pollMs (default 1000); a missing
   * ConfigMap or key means DEFAULT_TRAFFIC's value. A bad value keeps the last good settings and is
   * reported by problem().
   */
  | {
      readonly kind: 'configMap';
      readonly client: KubeClient;
      readonly namespace: string;
      readonly name: string;
      readonly pollMs?: number;
    };

export interface TrafficSimOptions {
  /** Simulated requests per second (default 50). */
  readonly requestsPerSecond?: number;
  /** Default: manual, starting at DEFAULT_TRAFFIC. */
  readonly source?: TrafficSource;
  /** The destination_service of the Istio series (default ISTIO_SERVICE). */
  readonly istioService?: string;
  readonly log?: (line: string) => void;
}

export interface TrafficSim {
  /** "http://127.0.0.1:<port>"; the metrics are at /metrics. */
  readonly url: string;
  /** "127.0.0.1:<port>": a Prometheus scrape target (startPrometheus's targets). */
  readonly target: string;
  /** The destination_service label of its Istio series. */
  readonly istioService: string;
  /** The settings in force now. */
  settings(): TrafficSettings;
  /** Why the last ConfigMap read failed or was refused; undefined when it was good. */
  problem(): string | undefined;
  /** Changes the settings of a manual source; throws for a ConfigMap source or a bad value. */
  set(settings: Partial<TrafficSettings>): void;
  /** Clears the timers and closes the server; safe to call twice. */
  stop(): Promise<void>;
}

/** The Istio series' destination_service when none is given: a Service's cluster-local name. */
export const ISTIO_SERVICE = 'traffic.default.svc.cluster.local';
/** Both ends of a mesh request report it; queries pick one (reporter="source" in the Argo docs). */
const ISTIO_REPORTERS = ['source', 'destination'] as const;
/** Istio's default buckets of istio_request_duration_milliseconds. */
const ISTIO_MS_BUCKETS = [0.5, 1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000];

const TICK_MS = 100;
/** A stalled event loop (a loaded machine) is caught up by at most this many seconds of requests. */
const MAX_CATCH_UP_SECONDS = 2;
const READ_TIMEOUT_MS = 5000;

export async function startTrafficSim(opts: TrafficSimOptions = {}): Promise<TrafficSim> {
  const rps = opts.requestsPerSecond ?? 50;
  if (!Number.isFinite(rps) || rps <= 0 || rps > 10_000) {
    throw new Error(`traffic simulator: requestsPerSecond must be from 0 to 10000, got ${rps}`);
  }
  const source: TrafficSource = opts.source ?? { kind: 'manual' };
  const log = opts.log ?? (() => {});
  let current = valid(source.kind === 'manual' ? (source.initial ?? DEFAULT_TRAFFIC) : DEFAULT_TRAFFIC);
  let problem: string | undefined;
  const abort = new AbortController();

  const readConfigMap = async (cm: Extract<TrafficSource, { kind: 'configMap' }>): Promise<void> => {
    const what = `ConfigMap ${cm.namespace}/${cm.name}`;
    let data: Record<string, string> | undefined;
    try {
      const obj = await cm.client.request<{ data?: Record<string, string> }>({
        method: 'GET',
        path: `/api/v1/namespaces/${encodeURIComponent(cm.namespace)}/configmaps/${encodeURIComponent(cm.name)}`,
        timeoutMs: READ_TIMEOUT_MS,
        signal: abort.signal,
      });
      data = obj.data ?? {};
    } catch (err) {
      if (!isNotFound(err)) throw new Error(`traffic simulator: reading ${what}: ${errorMessage(err)}`);
    }
    const read = readTrafficSettings(data);
    switch (read.kind) {
      case 'ok':
        if (read.settings.errorRate !== current.errorRate || read.settings.latencyMs !== current.latencyMs) {
          log(
            `traffic simulator: ${what} sets errorRate ${read.settings.errorRate}, latencyMs ${read.settings.latencyMs}`,
          );
        }
        current = read.settings;
        problem = undefined;
        return;
      case 'invalid':
        problem = `${what}: data.${read.message}`;
        return;
      default:
        assertNever(read);
    }
  };

  // The first read happens before anything is served: a wrong client fails the start, not a test later.
  if (source.kind === 'configMap') await readConfigMap(source);

  const registry = new Registry();
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'Simulated HTTP requests by status code.',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'How long the simulated HTTP requests took.',
    registers: [registry],
  });
  new Gauge({
    name: 'traffic_sim_error_rate',
    help: 'The share of simulated requests answered with 500, as set.',
    registers: [registry],
    collect() {
      this.set(current.errorRate);
    },
  });
  new Gauge({
    name: 'traffic_sim_latency_seconds',
    help: 'The latency of every simulated request, as set.',
    registers: [registry],
    collect() {
      this.set(current.latencyMs / 1000);
    },
  });
  const istioService = opts.istioService ?? ISTIO_SERVICE;
  const istioLabels = ['reporter', 'destination_service', 'response_code'] as const;
  const istioRequests = new Counter({
    name: 'istio_requests_total',
    help: 'The simulated requests as an Istio sidecar counts them.',
    labelNames: istioLabels,
    registers: [registry],
  });
  const istioDuration = new Histogram({
    name: 'istio_request_duration_milliseconds',
    help: 'How long the simulated requests took, as an Istio sidecar measures them.',
    labelNames: istioLabels,
    buckets: ISTIO_MS_BUCKETS,
    registers: [registry],
  });
  /** Counts `n` requests answered `code`, each taking the latency set. */
  const count = (code: '200' | '500', n: number) => {
    if (n <= 0) return;
    requests.inc({ code }, n);
    const seconds = current.latencyMs / 1000;
    for (const reporter of ISTIO_REPORTERS) {
      const labels = { reporter, destination_service: istioService, response_code: code };
      istioRequests.inc(labels, n);
      for (let i = 0; i < n; i++) istioDuration.observe(labels, current.latencyMs);
    }
    for (let i = 0; i < n; i++) duration.observe(seconds);
  };
  // Every series exists from the start, so an error-rate query reads 0, not an empty vector.
  for (const code of ['200', '500'] as const) {
    requests.inc({ code }, 0);
    for (const reporter of ISTIO_REPORTERS)
      istioRequests.inc({ reporter, destination_service: istioService, response_code: code }, 0);
  }

  const began = Date.now();
  let emitted = 0;
  let errorDebt = 0;
  const tick = () => {
    const due = Math.floor(((Date.now() - began) / 1000) * rps);
    const n = Math.min(due - emitted, Math.ceil(rps * MAX_CATCH_UP_SECONDS));
    emitted = due;
    if (n <= 0) return;
    let errors = 0;
    for (let i = 0; i < n; i++) {
      errorDebt += current.errorRate;
      if (errorDebt >= 1 - 1e-9) {
        errorDebt -= 1;
        errors++;
      }
    }
    count('500', errors);
    count('200', n - errors);
  };
  const ticker = setInterval(tick, TICK_MS);
  ticker.unref();

  let poller: NodeJS.Timeout | undefined;
  let stopped = false;
  if (source.kind === 'configMap') {
    const poll = () => {
      poller = setTimeout(async () => {
        try {
          await readConfigMap(source);
        } catch (err) {
          if (stopped) return;
          problem = errorMessage(err);
          log(problem);
        }
        if (!stopped) poll();
      }, source.pollMs ?? 1000);
      poller.unref();
    };
    poll();
  }

  let server: Server;
  try {
    server = await listen(registry);
  } catch (err) {
    stopped = true;
    clearInterval(ticker);
    clearTimeout(poller);
    abort.abort();
    throw err;
  }
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  let stopping: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    target: `127.0.0.1:${port}`,
    istioService,
    settings: () => current,
    problem: () => problem,
    set: (settings) => {
      if (source.kind !== 'manual') {
        throw new Error(
          `traffic simulator: its settings come from ConfigMap ${source.namespace}/${source.name}; change that instead`,
        );
      }
      current = valid({ ...current, ...settings });
    },
    stop: () => {
      stopping ??= new Promise<void>((resolve, reject) => {
        stopped = true;
        clearInterval(ticker);
        clearTimeout(poller);
        abort.abort();
        server.close((err) => (err ? reject(err) : resolve()));
        // Prometheus keeps its scrape connection open; close() alone would wait for it.
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}

function valid(settings: TrafficSettings): TrafficSettings {
  const read = checkTrafficSettings(settings);
  switch (read.kind) {
    case 'ok':
      return read.settings;
    case 'invalid':
      throw new Error(`traffic simulator: ${read.message}`);
    default:
      return assertNever(read);
  }
}

function listen(registry: Registry): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics is served\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${errorMessage(err)}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
