// Prometheus metrics of one harness, on its own registry (so two harnesses in one process,
// as in tests, do not collide). Names follow client-go's workqueue metrics, prefixed convoy_.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export type HarnessMetrics = {
  readonly registry: Registry;
  readonly depth: Gauge<'controller'>;
  readonly adds: Counter<'controller'>;
  readonly retries: Counter<'controller'>;
  readonly workDuration: Histogram<'controller' | 'result'>;
  readonly errors: Counter<'controller'>;
  readonly informerErrors: Counter<'resource'>;
  readonly informerRelists: Counter<'resource' | 'reason'>;
  readonly shardsHeld: Gauge<'lease'>;
};

export function newMetrics(): HarnessMetrics {
  const registry = new Registry();
  const registers = [registry];
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
    shardsHeld: new Gauge({
      name: 'convoy_shard_leases_held',
      help: 'Shard leases this replica holds',
      labelNames: ['lease'],
      registers,
    }),
  };
}
