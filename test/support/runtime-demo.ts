// A runnable harness over ConfigMaps standing in for Releases (label `convoy-test/cluster`
// names their Cluster). The e2e shard test runs two of these as child processes and kills
// one; it also shows the wiring a convoy process does. Configured by environment variables.
// Run: KUBECONFIG=… DEMO_NAMESPACE=… node test/support/runtime-demo.ts
import { KubeConfig } from '@kubernetes/client-node';
import { splitKey } from '../../src/runtime/cache.ts';
import type { KubeObject } from '../../src/runtime/filters.ts';
import { changed } from '../../src/runtime/filters.ts';
import { Harness } from '../../src/runtime/harness.ts';
import { newLogger } from '../../src/runtime/log.ts';
import { shardOf } from '../../src/runtime/shard.ts';

export const CLUSTER_LABEL = 'convoy-test/cluster';

function env(name: string, fallback?: string): string {
  const v = process.env[name] ?? fallback;
  if (v === undefined) throw new Error(`${name} is required`);
  return v;
}

const namespace = env('DEMO_NAMESPACE');
const identity = env('DEMO_IDENTITY', `demo-${process.pid}`);
const kc = new KubeConfig();
kc.loadFromFile(env('KUBECONFIG'));

const harness = new Harness({
  name: 'demo',
  kubeConfig: kc,
  log: newLogger('demo').child({ identity }),
  probePort: Number(env('DEMO_PROBE_PORT', '0')),
  shards: {
    count: Number(env('DEMO_SHARDS', '2')),
    namespace,
    role: 'controller',
    identity,
    leaseDurationSeconds: Number(env('DEMO_LEASE_SECONDS', '3')),
    retryMs: Number(env('DEMO_RETRY_MS', '500')),
  },
});

const releases = harness.informer<KubeObject>({
  path: `/api/v1/namespaces/${namespace}/configmaps`,
  labelSelector: CLUSTER_LABEL,
  resyncMs: 0,
});

/** Stand-in for a Release's shard: its Cluster's shard, or its namespace's without one. */
export function demoShard(obj: KubeObject | undefined, key: string, count: number): number {
  const cluster = obj?.metadata?.labels?.[CLUSTER_LABEL];
  const ns = splitKey(key).namespace ?? '';
  return cluster
    ? shardOf({ kind: 'cluster', namespace: ns, name: cluster }, count)
    : shardOf({ kind: 'namespace', namespace: ns }, count);
}

harness.controller({
  name: 'demo',
  primary: releases,
  workers: 2,
  // Only data changes count: our own annotation writes (none here) or label-only edits do not.
  updateFilter: changed((o: KubeObject) => o.data),
  shardOfKey: (key) => demoShard(releases.cache.get(key), key, harness.shardCount),
  reconcile: async (key, { log }) => {
    const obj = releases.cache.get(key);
    log.info({ data: obj?.data, shard: demoShard(obj, key, harness.shardCount) }, 'reconciled');
    return { kind: 'done' };
  },
});

harness.stopOnSignals();
await harness.start();
harness.log.info({ probePort: harness.probePort }, 'demo ready');
