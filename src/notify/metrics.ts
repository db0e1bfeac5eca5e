// The notification metrics on the process's registry: every delivery's end by provider and result, a
// failing provider as a gauge (1 while its last attempt failed), the queue depth, and the delay from a
// transition seen to its message delivered.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface NotifyMetrics {
  /** result: delivered, skipped, refused, expired, stopped, retried, queueFull. */
  readonly deliveries: Counter<'provider' | 'result'>;
  readonly failing: Gauge<'provider'>;
  readonly queueDepth: Gauge;
  readonly delay: Histogram;
}

export function newNotifyMetrics(registry: Registry | undefined): NotifyMetrics {
  const registers = registry === undefined ? [] : [registry];
  return {
    deliveries: new Counter({
      name: 'convoy_notify_deliveries_total',
      help: 'Notifications by provider (namespace/name) and how they ended: delivered, skipped (nothing to send), refused (the provider said no for good), expired (retries exhausted), stopped, retried (one failed attempt), queueFull',
      labelNames: ['provider', 'result'],
      registers,
    }),
    failing: new Gauge({
      name: 'convoy_notify_provider_failing',
      help: '1 while the last attempt to send through the provider (namespace/name) failed',
      labelNames: ['provider'],
      registers,
    }),
    queueDepth: new Gauge({
      name: 'convoy_notify_queue_depth',
      help: 'Notifications waiting or being sent',
      registers,
    }),
    delay: new Histogram({
      name: 'convoy_notify_delivery_delay_seconds',
      help: 'From a transition seen by the controller to its message delivered',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    }),
  };
}
