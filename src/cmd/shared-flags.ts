// The settings both processes take, spelled the same on both (docs/design.md#sharding: they must agree on the
// shard count and the Lease namespace): one table, one parser. Pure.
import { DurationError, parseDuration } from '../api/duration.ts';
import {
  type BindAddress,
  describeFlag,
  type Env,
  FlagError,
  type FlagTable,
  flagValue,
  toBindAddress,
  toInt,
} from './flags.ts';

export const DEFAULT_LEASE_NAMESPACE = 'convoy-system';

/** The flags of both processes; `metricsPort` is the port of each process's default bind address. */
export function sharedFlags(metricsPort: number): FlagTable {
  return {
    kubeconfig: {
      arg: 'PATH',
      env: false,
      help: 'kubeconfig of the cluster convoy runs in; unset: $KUBECONFIG, ~/.kube/config, else in-cluster',
    },
    'shard-count': {
      arg: 'N',
      default: '1',
      help: 'number of shards; the same on the controller-manager and the observer',
    },
    'lease-namespace': {
      arg: 'NS',
      default: DEFAULT_LEASE_NAMESPACE,
      help: 'namespace of the shard Leases of both processes',
    },
    'lease-duration': {
      arg: 'DURATION',
      default: '15s',
      help: 'shard Lease duration, a Go duration of whole seconds >= 2s',
    },
    identity: { arg: 'ID', help: 'Lease holder identity (default <hostname>-<pid>; in a pod, its name)' },
    'metrics-bind-address': {
      arg: 'HOST:PORT',
      default: `127.0.0.1:${metricsPort}`,
      help: 'plain HTTP /metrics, /healthz, /readyz; :PORT = every interface (in a pod), port 0 = any free port',
    },
    // A reconcile mostly waits on the API: at 2,000 Releases all were Ready in 142 s with 4 workers,
    // 113 s with 10 and 90 s with 12 (npm run bench:scale, CONVOY_BENCH_CONCURRENCY; 2 cores), for
    // ~30 MiB more at the peak. kube-apiserver's CPU is the limit after that.
    concurrency: { arg: 'N', default: '10', help: 'workers' },
    'reconcile-timeout': {
      arg: 'DURATION',
      default: '10m',
      help: 'deadline of one reconcile: its slow calls are aborted and the key is retried with backoff',
    },
  };
}

export interface SharedOptions {
  /** undefined: client-node's default loading ($KUBECONFIG, ~/.kube/config, in-cluster). */
  readonly kubeconfig: string | undefined;
  readonly shardCount: number;
  readonly leaseNamespace: string;
  readonly leaseDurationSeconds: number;
  readonly identity: string;
  readonly metricsBindAddress: BindAddress;
  readonly concurrency: number;
  readonly reconcileTimeoutMs: number;
}

/** Who this process is when --identity is not given: unique per process, also on one host. */
export interface HostInfo {
  readonly hostname: string;
  readonly pid: number;
}

export function parseShared(
  table: FlagTable,
  given: ReadonlyMap<string, string>,
  env: Env,
  host: HostInfo,
): SharedOptions {
  const get = (f: string) => flagValue(table, given, env, f);
  const need = (f: string): string => {
    const v = get(f);
    if (v === undefined) throw new Error(`flag table without a default for --${f}`);
    return v;
  };
  return {
    kubeconfig: get('kubeconfig'),
    shardCount: toInt(describeFlag(table, 'shard-count'), need('shard-count'), 1),
    leaseNamespace: need('lease-namespace'),
    leaseDurationSeconds: leaseSeconds(describeFlag(table, 'lease-duration'), need('lease-duration')),
    identity: get('identity') ?? `${host.hostname}-${host.pid}`,
    metricsBindAddress: toBindAddress(
      describeFlag(table, 'metrics-bind-address'),
      need('metrics-bind-address'),
    ),
    concurrency: toInt(describeFlag(table, 'concurrency'), need('concurrency'), 1),
    reconcileTimeoutMs: positiveMs(describeFlag(table, 'reconcile-timeout'), need('reconcile-timeout')),
  };
}

/** A Lease counts whole seconds (spec.leaseDurationSeconds); below 2 s renewals cannot keep up. */
function leaseSeconds(what: string, v: string): number {
  const ms = durationMs(what, v);
  if (ms < 2000 || ms % 1000 !== 0) {
    throw new FlagError(
      `${what} must be whole seconds, at least 2s (e.g. 15s, 1m), got ${JSON.stringify(v)}`,
    );
  }
  return ms / 1000;
}

/** A duration that must be above zero (a limit of 0 would fail everything at once). */
export function positiveMs(what: string, v: string): number {
  const ms = durationMs(what, v);
  if (ms <= 0) throw new FlagError(`${what} must be above 0, got ${JSON.stringify(v)}`);
  return ms;
}

export function durationMs(what: string, v: string): number {
  try {
    const ms = parseDuration(v);
    if (ms < 0) throw new DurationError('negative');
    return ms;
  } catch (err) {
    if (!(err instanceof DurationError)) throw err;
    throw new FlagError(`${what} must be a Go duration like 15s or 1m30s, got ${JSON.stringify(v)}`);
  }
}
