// Prometheus metrics of one harness, on its own registry (so two harnesses in one process,
// as in tests, do not collide). Names follow client-go's workqueue metrics, prefixed convoy_.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { transportStats } from '../kube/transport.ts';

export type HarnessMetrics = {
  readonly registry: Registry;
  readonly depth: Gauge<'controller'>;
  readonly adds: Counter<'controller'>;
  readonly retries: Counter<'controller'>;
  readonly workDuration: Histogram<'controller' | 'result'>;
  readonly errors: Counter<'controller'>;
  readonly reconcileTimeouts: Counter<'controller'>;
  readonly reconcileSuperseded: Counter<'controller'>;
  readonly informerErrors: Counter<'resource'>;
  readonly informerRelists: Counter<'resource' | 'reason'>;
  readonly shardsHeld: Gauge<'lease'>;
  readonly memoryReturned: Counter;
  readonly memoryReturnSeconds: Counter;
};

export function newMetrics(): HarnessMetrics {
  const registry = new Registry();
  const registers = [registry];
  // Read at scrape time from src/kube's process-wide counts: every client of the process goes through
  // that transport, so this is what the whole process costs the API server (watches counted when opened).
  new Counter({
    name: 'convoy_kube_requests_total',
    help: 'Requests this process sent to the Kubernetes API, by method and resource (WATCH: watches opened)',
    labelNames: ['method', 'resource'],
    registers,
    collect() {
      this.reset();
      for (const [k, n] of Object.entries(transportStats().byResource)) {
        const [method = '', resource = ''] = k.split(' ');
        this.inc({ method, resource }, n);
      }
    },
  });
  return {
    registry,
    depth: new Gauge({
      name: 'convoy_workqueue_depth',
      help: 'Keys waiting in the work queue',
      labelNames: ['controller'],
      registers,
    }),
    adds: new Counter({
      name: 'convoy_workqueue_adds_total',
      help: 'Keys added to the work queue',
      labelNames: ['controller'],
      registers,
    }),
    retries: new Counter({
      name: 'convoy_workqueue_retries_total',
      help: 'Keys re-added with error backoff',
      labelNames: ['controller'],
      registers,
    }),
    workDuration: new Histogram({
      name: 'convoy_reconcile_duration_seconds',
      help: 'Time one reconcile of a key took',
      labelNames: ['controller', 'result'],
      buckets: [0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 30],
      registers,
    }),
    errors: new Counter({
      name: 'convoy_reconcile_errors_total',
      help: 'Reconciles that returned or threw an error',
      labelNames: ['controller'],
      registers,
    }),
    reconcileTimeouts: new Counter({
      name: 'convoy_reconcile_timeouts_total',
      help: 'Reconciles whose deadline passed (their signal aborted; the key is retried with backoff)',
      labelNames: ['controller'],
      registers,
    }),
    reconcileSuperseded: new Counter({
      name: 'convoy_reconcile_superseded_total',
      help: 'Reconciles aborted in flight by a newer change to their object (deletion, a sync request)',
      labelNames: ['controller'],
      registers,
    }),
    informerErrors: new Counter({
      name: 'convoy_informer_errors_total',
      help: 'List/watch failures (each is retried)',
      labelNames: ['resource'],
      registers,
    }),
    informerRelists: new Counter({
      name: 'convoy_informer_relists_total',
      help: 'Full LIST attempts, by cause (start; gone = a 410 on the version resumed from)',
      labelNames: ['resource', 'reason'],
      registers,
    }),
    memoryReturned: new Counter({
      name: 'convoy_memory_returned_bytes_total',
      help: 'Resident memory given back to the system by a last-resort GC and malloc_trim (docs/design.md#large-renders)',
      registers,
    }),
    memoryReturnSeconds: new Counter({
      name: 'convoy_memory_return_seconds_total',
      help: 'Time the event loop was held giving memory back',
      registers,
    }),
    shardsHeld: new Gauge({
      name: 'convoy_shard_leases_held',
      help: 'Shard leases this replica holds',
      labelNames: ['lease'],
      registers,
    }),
  };
}
