// The release controller's EventRecorder with its two counters (docs/design.md#processes): how many Events
// about Releases the API server accepted, and how many were given up and why.
import { Counter, type Registry } from 'prom-client';
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
  return new EventRecorder(local, {
    onRecorded: () => eventsRecorded.inc(),
    onDropped: (reason, err) => {
      eventsDropped.inc({ reason });
      log.warn({ reason, err: err === undefined ? undefined : String(err) }, 'an Event was dropped');
    },
  });
}
