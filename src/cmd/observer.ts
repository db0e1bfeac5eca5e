// convoy-observer: flags → wiring of the harness and the health loop. It competes for the Leases
// convoy-observer-shard-<i> and works only the Releases of shards it holds. Flags: observer-flags.ts.
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { KubeClient } from '../kube/client.ts';
import { errorMessage } from '../lib/errors.ts';
import { registerDriftController } from '../observer/drift/index.ts';
import { describeSyncVia, HealthController, type SyncVia } from '../observer/health/loop/index.ts';
import { ObserverStatusWriter } from '../observer/status-writer.ts';
import { TargetWatches } from '../observer/target-watches.ts';
import { ChecksEngine } from '../observer/verify/checks-engine.ts';
import { VerificationController } from '../observer/verify/controller.ts';
import { Harness, newLogger } from '../runtime/index.ts';
import { loadKubeConfig, runEntry } from './entry.ts';
import { FlagError } from './flags.ts';
import { OBSERVER, parseObserverFlags } from './observer-flags.ts';
import type { SyncSettings } from './sync-flags.ts';

await runEntry(OBSERVER, async () => {
  const command = parseObserverFlags(process.argv.slice(2), process.env, {
    hostname: hostname(),
    pid: process.pid,
  });
  if (command.kind === 'help') {
    process.stdout.write(command.text);
    return;
  }
  const opts = command.options;
  const sync = await syncVia(opts.sync);
  const kc = loadKubeConfig(opts.kubeconfig);
  const log = newLogger(OBSERVER).child({ identity: opts.identity });
  const harness = new Harness({
    name: OBSERVER,
    kubeConfig: kc,
    log,
    probePort: opts.metricsBindAddress.port,
    probeHost: opts.metricsBindAddress.host,
    reconcileTimeoutMs: opts.reconcileTimeoutMs,
    shards: {
      count: opts.shardCount,
      namespace: opts.leaseNamespace,
      role: 'observer',
      identity: opts.identity,
      leaseDurationSeconds: opts.leaseDurationSeconds,
    },
  });
  // One client and one set of target watches for both loops, so a kind is watched once.
  const client = new KubeClient(kc);
  const watches = new TargetWatches({ registry: harness.metrics.registry, log });
  harness.onStop(() => watches.stop());
  // One status writer: a Release's Healthy and Drifted verdicts share a write (docs/design.md#observer-status).
  const status = new ObserverStatusWriter(client);
  // Both loops read target objects from the watches where the cache is trusted
  // (docs/design.md#watched-reads).
  const loops = { client, workers: opts.concurrency, resyncMs: opts.resyncMs, sync, watches, status };
  new HealthController(harness, loops);
  registerDriftController(harness, opts.driftInterval, loops);
  // Verification (docs/design.md#verification): its own loop, so a slow provider never holds a health pass.
  new VerificationController(harness, {
    client,
    workers: opts.concurrency,
    engine: new ChecksEngine({ client }),
  });
  if (sync.kind === 'annotation') {
    log.warn(
      '--sync-mode=annotation: wake-ups write sync-requested-at directly, bypassing the HTTP API (degraded mode)',
    );
  }
  harness.stopOnSignals();
  await harness.start();
  log.info(
    {
      probePort: harness.probePort,
      probeAddress: harness.probeAddress,
      shards: opts.shardCount,
      sync: describeSyncVia(sync),
    },
    `${OBSERVER} ready`,
  );
});

async function syncVia(s: SyncSettings): Promise<SyncVia> {
  if (s.kind !== 'direct') return s;
  if (s.caFile === undefined) return { kind: 'direct', url: s.url };
  try {
    return { kind: 'direct', url: s.url, caPem: await readFile(s.caFile, 'utf8') };
  } catch (err) {
    throw new FlagError(`--sync-api-ca-file ${s.caFile}: ${errorMessage(err)}`);
  }
}
