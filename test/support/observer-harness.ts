// The Harness of an observer run in-process by e2e files that drive the health loop themselves: the one
// observer shard, its Lease in the Lease namespace with short timings so that it is taken at once.
import type { KubeConfig } from '@kubernetes/client-node';
import { Harness, newLogger } from '../../src/runtime/index.ts';
import { LEASE_NS } from './system.ts';

/** A Harness named `name` (its logger too, at warn) holding observer shard 0 of 1. */
export function observerHarness(name: string, kubeConfig: KubeConfig): Harness {
  return new Harness({
    name,
    kubeConfig,
    log: newLogger(name, undefined, 'warn'),
    shards: {
      count: 1,
      namespace: LEASE_NS,
      role: 'observer',
      identity: 'in-process',
      leaseDurationSeconds: 5,
      retryMs: 300,
    },
  });
}
