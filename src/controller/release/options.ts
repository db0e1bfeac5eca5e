// convoy-controller-manager's settings from flags and environment variables (a flag wins). Pure, so
// the entry point stays wiring only.
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ManagerOptions {
  readonly kubeconfig: string | undefined;
  readonly shardIndex: number | undefined;
  readonly shardCount: number;
  readonly concurrency: number;
  readonly metricsPort: number;
  readonly leaseNamespace: string;
  readonly leaseDurationSeconds: number;
  readonly identity: string;
  readonly gitCacheDir: string;
  readonly allowFileUrls: boolean;
  /** Test seam: exit(137) right after applying this wave, before recording it. */
  readonly crashAfterWave: number | undefined;
}

const FLAGS = {
  kubeconfig: 'KUBECONFIG',
  'shard-index': 'CONVOY_SHARD_INDEX',
  'shard-count': 'CONVOY_SHARD_COUNT',
  concurrency: 'CONVOY_CONCURRENCY',
  'metrics-port': 'CONVOY_METRICS_PORT',
  'lease-namespace': 'CONVOY_LEASE_NAMESPACE',
  'lease-duration': 'CONVOY_LEASE_DURATION_SECONDS',
  identity: 'CONVOY_IDENTITY',
  'git-cache-dir': 'CONVOY_GIT_CACHE_DIR',
  'allow-file-urls': 'CONVOY_ALLOW_FILE_URLS',
} as const;
type Flag = keyof typeof FLAGS;

export function parseManagerOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ManagerOptions {
  const given = new Map<Flag, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf('=');
    const name = (eq < 0 ? arg.slice(2) : arg.slice(2, eq)) as Flag;
    if (!(name in FLAGS)) throw new Error(`unknown flag --${name}`);
    let value = eq < 0 ? undefined : arg.slice(eq + 1);
    if (value === undefined) {
      if (name === 'allow-file-urls') value = 'true';
      else {
        value = argv[++i];
        if (value === undefined) throw new Error(`--${name} needs a value`);
      }
    }
    given.set(name, value);
  }
  const get = (f: Flag): string | undefined =>
    given.get(f) ?? (env[FLAGS[f]] === '' ? undefined : env[FLAGS[f]]);
  const int = (f: Flag, fallback: number | undefined, min: number): number | undefined => {
    const v = get(f);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min)
      throw new Error(`--${f} (${FLAGS[f]}) must be an integer >= ${min}, got ${v}`);
    return n;
  };
  const shardCount = int('shard-count', 1, 1) ?? 1;
  const shardIndex = int('shard-index', undefined, 0);
  if (shardIndex !== undefined && shardIndex >= shardCount) {
    throw new Error(`--shard-index ${shardIndex} must be below --shard-count ${shardCount}`);
  }
  const crash = env.CONVOY_TEST_CRASH_AFTER_WAVE_APPLY;
  return {
    kubeconfig: get('kubeconfig'),
    shardIndex,
    shardCount,
    concurrency: int('concurrency', 4, 1) ?? 4,
    metricsPort: int('metrics-port', 8080, 0) ?? 8080,
    leaseNamespace: get('lease-namespace') ?? 'convoy-system',
    leaseDurationSeconds: int('lease-duration', 15, 2) ?? 15,
    identity: get('identity') ?? hostname(),
    gitCacheDir: get('git-cache-dir') ?? join(tmpdir(), 'convoy-git-cache'),
    allowFileUrls: ['1', 'true', 'yes'].includes((get('allow-file-urls') ?? 'false').toLowerCase()),
    crashAfterWave: crash === undefined || crash === '' ? undefined : Number(crash),
  };
}
