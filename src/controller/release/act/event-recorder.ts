// The release controller's EventRecorder with its metrics (docs/design.md#processes): how many Events
// about Releases the API server accepted, how many were given up and why, and how many wait to be sent.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { KubeClient } from '../../../kube/client.ts';
import { EventRecorder } from '../../../kube/events.ts';
import type { ReleaseDeps } from '../deps.ts';

export function eventRecorder(local: KubeClient, registry: Registry, log: ReleaseDeps['log']): EventRecorder {
  const registers = [registry];
  const eventsRecorded = new Counter({
    name: 'convoy_events_recorded_total',
    help: 'Events about Releases the API server accepted (after retries)',
    registers,
  });
  const eventsDropped = new Counter({
    name: 'convoy_events_dropped_total',
    help: 'Events about Releases given up: queueFull (the bounded queue was full), refused (the API said no for good), attempts (retried too often)',
    labelNames: ['reason'],
    registers,
  });
  for (const reason of ['queueFull', 'refused', 'attempts']) eventsDropped.inc({ reason }, 0);
  const recorder = new EventRecorder(local, {
    onRecorded: () => eventsRecorded.inc(),
    onDropped: (reason, err) => {
      eventsDropped.inc({ reason });
      log.warn({ reason, err: err === undefined ? undefined : String(err) }, 'an Event was dropped');
    },
  });
  new Gauge({
    name: 'convoy_events_queued',
    help: 'Events about Releases waiting to be sent (they go one at a time, retried with backoff)',
    registers,
    collect() {
      this.set(recorder.queued);
    },
  });
  return recorder;
}
