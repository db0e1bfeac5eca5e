// convoy-controller-manager: flags → wiring. Runs the release controller on the harness with shard
// leases (or one static shard with --shard-index), the probe/metrics server, graceful shutdown.
import { KubeConfig } from '@kubernetes/client-node';
import { registerReleaseController } from '../controller/release/controller.ts';
import { parseManagerOptions } from '../controller/release/options.ts';
import { Harness, newLogger } from '../runtime/index.ts';

const opts = parseManagerOptions(process.argv.slice(2), process.env);
const kubeConfig = new KubeConfig();
if (opts.kubeconfig !== undefined) kubeConfig.loadFromFile(opts.kubeconfig);
else kubeConfig.loadFromDefault();

const log = newLogger('convoy-controller-manager').child({ identity: opts.identity });
const harness = new Harness({
  name: 'convoy-controller-manager',
  kubeConfig,
  log,
  probePort: opts.metricsPort,
  ...(opts.shardIndex === undefined
    ? {
        shards: {
          count: opts.shardCount,
          namespace: opts.leaseNamespace,
          role: 'controller' as const,
          identity: opts.identity,
          leaseDurationSeconds: opts.leaseDurationSeconds,
        },
      }
    : {}),
});

const crashWave = opts.crashAfterWave;
registerReleaseController(harness, {
  kubeConfig,
  leaseNamespace: opts.leaseNamespace,
  gitCacheDir: opts.gitCacheDir,
  allowFileUrls: opts.allowFileUrls,
  workers: opts.concurrency,
  shardCount: opts.shardCount,
  ...(opts.shardIndex === undefined ? {} : { shardIndex: opts.shardIndex }),
  ...(crashWave === undefined
    ? {}
    : {
        afterWaveApplied: (wave: number) => {
          if (wave !== crashWave) return;
          log.warn({ wave }, 'CONVOY_TEST_CRASH_AFTER_WAVE_APPLY: exiting before the wave is recorded');
          process.exit(137);
        },
      }),
});

harness.stopOnSignals();
await harness.start();
log.info(
  { probePort: harness.probePort, shards: opts.shardCount, shardIndex: opts.shardIndex },
  'convoy-controller-manager ready',
);
