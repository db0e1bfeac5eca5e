// convoy-controller-manager: flags → wiring. Runs the release controller on the harness with shard
// leases (or one static shard with --shard-index), the probe/metrics server, the HTTP API (docs/http-api.md;
// --api-* flags, see api-flags.ts) and graceful shutdown. Flags: controller-manager-flags.ts.

import { hostname, tmpdir } from 'node:os';
import { FIELD_MANAGERS } from '../api/constants.ts';
import { registerReleaseController } from '../controller/release/controller.ts';
import { registerFleetController } from '../controller/releaseset/controller.ts';
import { KubeClient } from '../kube/client.ts';
import { registerNotifyController } from '../notify/controller.ts';
import { Harness, newLogger } from '../runtime/index.ts';
import { newApiMetrics } from '../server/index.ts';
import { type RunningApi, startApi } from './api-server.ts';
import { startClusterController } from './cluster-controller-wiring.ts';
import { CONTROLLER_MANAGER, parseControllerManagerFlags } from './controller-manager-flags.ts';
import { loadKubeConfig, runEntry } from './entry.ts';

await runEntry(CONTROLLER_MANAGER, async () => {
  const command = parseControllerManagerFlags(process.argv.slice(2), process.env, {
    hostname: hostname(),
    pid: process.pid,
    tmpdir: tmpdir(),
  });
  if (command.kind === 'help') {
    process.stdout.write(command.text);
    return;
  }
  const { options: opts, api: apiOpts } = command;
  const kubeConfig = loadKubeConfig(opts.kubeconfig);
  const log = newLogger(CONTROLLER_MANAGER).child({ identity: opts.identity });
  const harness = new Harness({
    name: CONTROLLER_MANAGER,
    kubeConfig,
    log,
    probePort: opts.metricsBindAddress.port,
    probeHost: opts.metricsBindAddress.host,
    reconcileTimeoutMs: opts.reconcileTimeoutMs,
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
  // The cluster controller probes each Cluster and writes its Ready condition (docs/reference/cluster.md);
  // the release controller resolves targets through the same clients, so each remote client and its
  // discovery cache are built once.
  const cluster = startClusterController(harness, { kubeConfig });
  const release = registerReleaseController(harness, {
    kubeConfig,
    clusterClients: cluster.clients,
    leaseNamespace: opts.leaseNamespace,
    gitCacheDir: opts.gitCacheDir,
    allowFileUrls: opts.allowFileUrls,
    gitTimeoutMs: opts.gitTimeoutMs,
    gitStallMs: opts.gitStallMs,
    kustomizeBinary: opts.kustomizeBinary,
    helmBinary: opts.helmBinary,
    tenancy: opts.tenancy,
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

  // ReleaseSets: one Release per member cluster, given each revision in waves (docs/fleets.md).
  registerFleetController(harness, {
    client: new KubeClient(kubeConfig),
    shardCount: opts.shardCount,
    ...(opts.shardIndex === undefined ? {} : { shardIndex: opts.shardIndex }),
  });

  // Alerts: deliveries for the Releases of the shards this replica works, never inside a reconcile.
  const sharded = opts.shardCount > 1;
  const notify = registerNotifyController(harness, {
    client: new KubeClient(kubeConfig),
    log: log.child({ controller: 'notify' }),
    ...(opts.shardIndex === undefined
      ? { shardOfKey: release.shardOfKey }
      : { owns: (key: string) => release.shardOfKey(key) === opts.shardIndex }),
    heldShards: opts.shardIndex === undefined ? () => harness.heldShards() : () => [opts.shardIndex ?? 0],
    // One ledger writer per replica when several share the Releases (see src/notify/controller.ts).
    ...(sharded ? { fieldManager: `${FIELD_MANAGERS.notify}-${opts.identity}`.slice(0, 128) } : {}),
  });

  // Deliveries in flight end and the ledger is written before the shard Leases go to another replica.
  harness.onStop(() => notify.stop());

  // The API starts next to the harness, not before it: reading the front-proxy settings may take a
  // moment and must not hold the controllers back.
  const api: Promise<RunningApi | undefined> =
    apiOpts.kind === 'serve'
      ? startApi(apiOpts, {
          kubeConfig,
          log: log.child({ component: 'api' }),
          metrics: newApiMetrics(harness.metrics.registry),
        })
      : Promise.resolve(undefined);
  const stopApi = async () => (await api.catch(() => undefined))?.stop();
  harness.stopOnSignals((code) => {
    void Promise.allSettled([stopApi()]).finally(() => process.exit(code));
  });
  // A misconfigured API (port taken, unreadable certificate) stops the process at once: running the
  // controllers without the API would leave every observer's wake-up failing.
  const [, running] = await Promise.all([harness.start(), api]).catch((err: unknown) => {
    log.error({ err: String(err) }, `${CONTROLLER_MANAGER} failed to start`);
    process.exit(1);
  });
  if (running === undefined) log.info('HTTP API disabled (--api-bind-address=off)');
  log.info(
    {
      probePort: harness.probePort,
      probeAddress: harness.probeAddress,
      shards: opts.shardCount,
      shardIndex: opts.shardIndex,
      ...(running === undefined ? {} : { apiUrl: running.url }),
    },
    `${CONTROLLER_MANAGER} ready`,
  );
});
