// A shard Lease renewal that lands after the hold lapsed, on the real API server: the elector counts the
// shard as gained again (onGained), because during the gap its shard gate turned keys away as not ours
// and nothing else would enqueue them. Seen in chaos seed 8 (load average 24): a RolledBack Release whose
// 5 s requeue fell in such a gap was never reconciled again, so its failed rollback was never retried
// and the bad render stayed live. The round is stalled (its member Lease PUT delayed) so that only the
// renewal can end the gap, as on a loaded host.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ShardElector } from '../../src/runtime/elector.ts';
import { controllerLeaseName } from '../../src/runtime/shard.ts';
import { Transport } from '../../src/runtime/transport.ts';
import { type ControlPlane, startControlPlane } from '../../src/testenv/index.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'late-renewal';
const LEASE_SECONDS = 3; // retry 1 s, renew deadline 2 s

/** Delays the next PUT whose path matches, once, by the given ms (before sending it). */
class DelayingTransport extends Transport {
  readonly #delays: { match: (path: string) => boolean; ms: number }[] = [];
  delayNext(match: (path: string) => boolean, ms: number): void {
    this.#delays.push({ match, ms });
  }
  override async request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const i = method === 'PUT' ? this.#delays.findIndex((d) => d.match(path)) : -1;
    if (i >= 0) {
      const [d] = this.#delays.splice(i, 1);
      await sleep(d?.ms ?? 0);
    }
    return await super.request<T>(method, path, body, signal);
  }
}

let cp: ControlPlane;
before(async () => {
  cp = await startControlPlane();
  await new Transport(cp.kubeConfig).request('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NS },
  });
});
after(async () => {
  await cp?.stop();
});

it('a renewal landing after the hold lapsed counts as gaining the shard again', async () => {
  const t = new DelayingTransport(cp.kubeConfig);
  const events: string[] = [];
  const elector = new ShardElector({
    transport: t,
    namespace: NS,
    leaseName: controllerLeaseName,
    identity: 'late-a',
    shards: 1,
    leaseDurationSeconds: LEASE_SECONDS,
    onGained: () => events.push('gained'),
    onLost: () => events.push('lost'),
  });
  elector.start();
  try {
    await waitFor('shard 0 held', async () => elector.owns(0), { timeoutMs: 30_000, intervalMs: 50 });
    // Let one renewal land, so the next one starts from a hold renewed on the renewals' cadence.
    await sleep(1_200);
    const shardLease = `/leases/${controllerLeaseName(0)}`;
    // The round stalls on its member Lease; the next shard renewal takes 1.8 s: the hold (renewed ~1 s
    // before, valid 2 s) lapses in between, and the late renewal makes it valid again.
    t.delayNext((p) => p.includes('/leases/') && !p.endsWith(shardLease), 4_000);
    t.delayNext((p) => p.endsWith(shardLease), 1_800);
    let sawGap = false;
    await waitFor(
      'the hold lapsed and came back',
      async () => {
        if (!elector.owns(0)) sawGap = true;
        return sawGap && elector.owns(0);
      },
      { timeoutMs: 15_000, intervalMs: 20 },
    );
    assert.deepEqual(
      events,
      ['gained', 'gained'],
      'the late renewal ends a gap in which keys were turned away: it must count as a gain',
    );
  } finally {
    await elector.stop();
  }
});
