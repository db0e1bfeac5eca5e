// The health loop's wake-ups of the controller (docs/design.md#controller-wake-ups): on an edge a pass sends
// the sync request (./sync-request.ts); an edge whose request failed is kept in memory per Release key, so
// the retried pass sends it even when it sees no new edge. Failures are counted; what the pass returns
// stays the controller's (./controller.ts).
import { Counter, type Registry } from 'prom-client';
import type { Release } from '../../../api/types.ts';
import type { KubeClient } from '../../../kube/client.ts';
import { errorMessage } from '../../../lib/errors.ts';
import type { Logger } from '../../../runtime/index.ts';
import { requestSync, type SyncVia } from './sync-request.ts';

export type WakeOutcome =
  /** No edge and none kept: nothing sent. */
  | { readonly kind: 'quiet' }
  | { readonly kind: 'sent' }
  /** The Release no longer exists. */
  | { readonly kind: 'gone' }
  /** The request failed; the edge is kept for the next pass. */
  | { readonly kind: 'failed'; readonly error: unknown };

export class ControllerWaker {
  readonly #client: KubeClient;
  readonly #via: SyncVia;
  readonly #now: () => Date;
  /** Release keys with an edge not yet delivered. */
  readonly #pending = new Set<string>();
  readonly #failures: Counter;

  constructor(registry: Registry, client: KubeClient, via: SyncVia | undefined, now: () => Date) {
    this.#client = client;
    this.#via = via ?? { kind: 'aggregated' };
    this.#now = now;
    this.#failures = new Counter({
      name: 'convoy_health_sync_request_failures_total',
      help: 'Wake-ups that failed (the edge is kept and the pass retried)',
      registers: [registry],
    });
    this.#failures.inc(0);
  }

  /** Sends the sync request on an edge, or for an edge kept from a pass whose request failed. */
  async wake(key: string, release: Release, edge: boolean, log: Logger): Promise<WakeOutcome> {
    if (!edge && !this.#pending.has(key)) return { kind: 'quiet' };
    this.#pending.add(key);
    try {
      if ((await requestSync(this.#client, this.#via, release, this.#now())) === 'gone') {
        this.#pending.delete(key);
        return { kind: 'gone' };
      }
    } catch (err) {
      this.#failures.inc();
      log.warn({ err: errorMessage(err) }, 'sync request failed; kept for the next pass');
      return { kind: 'failed', error: err };
    }
    this.#pending.delete(key);
    log.info('sync requested');
    return { kind: 'sent' };
  }

  forget(key: string): void {
    this.#pending.delete(key);
  }
}
