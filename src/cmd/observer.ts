// Entry point of convoy-observer: flags and environment → wiring of the harness and the health loop.
// It competes for the Leases convoy-observer-shard-<i> and works only the Releases of shards it holds.
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../kube/client.ts';
import { describeSyncVia, HealthController, type SyncVia } from '../observer/health/loop/index.ts';
import { Harness, newLogger } from '../runtime/index.ts';
import { parseSyncSettings } from './sync-flags.ts';

const usage = `usage: convoy-observer [flags]

  --kubeconfig PATH        kubeconfig (default: $KUBECONFIG, else in-cluster)
  --shards N               shard count, the same as the controller-manager's (env CONVOY_SHARDS, default 1)
  --lease-namespace NS     namespace of the shard Leases (env CONVOY_LEASE_NAMESPACE, default convoy-system)
  --lease-seconds N        shard Lease duration (env CONVOY_LEASE_SECONDS, default 15)
  --identity ID            holder identity (env CONVOY_IDENTITY, default hostname-pid)
  --concurrency N          health workers (env CONVOY_CONCURRENCY, default 4)
  --metrics-port N         /metrics, /healthz, /readyz (env CONVOY_METRICS_PORT, default 8081; 0: any free port)
  --resync DURATION-MS     informer resync in ms (env CONVOY_RESYNC_MS, default 600000; 0: never)

Wake-ups (POST /sync to the controller-manager's HTTP API, body {}, with this process's credentials):
  --sync-mode MODE         api (default) or annotation (env CONVOY_SYNC_MODE). annotation is a degraded
                           mode for clusters without the aggregated API: it writes sync-requested-at itself
  --sync-api-url URL       https://host:port of the API; unset: through kube-apiserver's aggregation layer
                           (env CONVOY_SYNC_API_URL). Direct calls send the kubeconfig's bearer token
  --sync-api-ca-file PATH  CA bundle that signed the API's serving certificate, with --sync-api-url
                           (env CONVOY_SYNC_API_CA_FILE; default: the system's trusted CAs)
`;

function int(name: string, v: string | undefined, fallback: number, min: number): number {
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${v}"`);
  return n;
}

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      kubeconfig: { type: 'string' },
      shards: { type: 'string' },
      'lease-namespace': { type: 'string' },
      'lease-seconds': { type: 'string' },
      identity: { type: 'string' },
      concurrency: { type: 'string' },
      'metrics-port': { type: 'string' },
      resync: { type: 'string' },
      'sync-mode': { type: 'string' },
      'sync-api-url': { type: 'string' },
      'sync-api-ca-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  const sync = await syncVia(
    parseSyncSettings(
      {
        ...(values['sync-mode'] === undefined ? {} : { 'sync-mode': values['sync-mode'] }),
        ...(values['sync-api-url'] === undefined ? {} : { 'sync-api-url': values['sync-api-url'] }),
        ...(values['sync-api-ca-file'] === undefined
          ? {}
          : { 'sync-api-ca-file': values['sync-api-ca-file'] }),
      },
      env,
    ),
  );
  const kc = new KubeConfig();
  const kubeconfig = values.kubeconfig ?? env.KUBECONFIG;
  if (kubeconfig) kc.loadFromFile(kubeconfig);
  else kc.loadFromCluster();
  const identity = values.identity ?? env.CONVOY_IDENTITY ?? `${hostname()}-${process.pid}`;
  const log = newLogger('convoy-observer').child({ identity });
  const harness = new Harness({
    name: 'convoy-observer',
    kubeConfig: kc,
    log,
    probePort: int('--metrics-port', values['metrics-port'] ?? env.CONVOY_METRICS_PORT, 8081, 0),
    shards: {
      count: int('--shards', values.shards ?? env.CONVOY_SHARDS, 1, 1),
      namespace: values['lease-namespace'] ?? env.CONVOY_LEASE_NAMESPACE ?? 'convoy-system',
      role: 'observer',
      identity,
      leaseDurationSeconds: int(
        '--lease-seconds',
        values['lease-seconds'] ?? env.CONVOY_LEASE_SECONDS,
        15,
        1,
      ),
    },
  });
  new HealthController(harness, {
    client: new KubeClient(kc),
    workers: int('--concurrency', values.concurrency ?? env.CONVOY_CONCURRENCY, 4, 1),
    resyncMs: int('--resync', values.resync ?? env.CONVOY_RESYNC_MS, 600_000, 0),
    sync,
  });
  if (sync.kind === 'annotation') {
    log.warn(
      '--sync-mode=annotation: wake-ups write sync-requested-at directly, bypassing the HTTP API (degraded mode)',
    );
  }
  harness.stopOnSignals();
  await harness.start();
  log.info({ probePort: harness.probePort, sync: describeSyncVia(sync) }, 'convoy-observer ready');
  return 0;
}

async function syncVia(s: ReturnType<typeof parseSyncSettings>): Promise<SyncVia> {
  if (s.kind !== 'direct') return s;
  if (s.caFile === undefined) return { kind: 'direct', url: s.url };
  try {
    return { kind: 'direct', url: s.url, caPem: await readFile(s.caFile, 'utf8') };
  } catch (err) {
    throw new Error(`--sync-api-ca-file ${s.caFile}: ${(err as Error).message}`);
  }
}

if (import.meta.main) {
  try {
    await main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`convoy-observer: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
