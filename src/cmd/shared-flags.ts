// The settings both processes take, spelled the same on both (docs/design.md#sharding: they must agree on the
// shard count and the Lease namespace): one table, one parser. Pure.
import {
  type BindAddress,
  durationMs,
  type Env,
  FlagError,
  type FlagReader,
  type FlagTable,
  flagReader,
  parseArgv,
  positiveMs,
  rejectRenamedEnv,
  toBindAddress,
  toInt,
  usage,
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

function parseShared(read: FlagReader, host: HostInfo): SharedOptions {
  return {
    kubeconfig: read.get('kubeconfig'),
    shardCount: read.parse('shard-count', (what, v) => toInt(what, v, 1)),
    leaseNamespace: read.need('lease-namespace'),
    leaseDurationSeconds: read.parse('lease-duration', leaseSeconds),
    identity: read.get('identity') ?? `${host.hostname}-${host.pid}`,
    metricsBindAddress: read.parse('metrics-bind-address', toBindAddress),
    concurrency: read.parse('concurrency', (what, v) => toInt(what, v, 1)),
    reconcileTimeoutMs: read.parse('reconcile-timeout', positiveMs),
  };
}

export type ProcessArgs =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'flags'; readonly shared: SharedOptions; readonly read: FlagReader };

/**
 * A process's command line, read the same way by both: its --help text, or (once no renamed variable
 * is set) the shared options and a reader for its own flags. `alsoKnown` and `footer` as parseArgv
 * and usage take them.
 */
export function parseProcessArgs(
  program: string,
  table: FlagTable,
  argv: readonly string[],
  env: Env,
  host: HostInfo,
  more: { readonly alsoKnown?: readonly string[]; readonly footer?: string } = {},
): ProcessArgs {
  const parsed = parseArgv(argv, table, more.alsoKnown);
  if (parsed.kind === 'help') return { kind: 'help', text: usage(program, table, more.footer) };
  rejectRenamedEnv(env);
  const read = flagReader(table, parsed.given, env);
  return { kind: 'flags', shared: parseShared(read, host), read };
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
