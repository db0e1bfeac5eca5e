// What wakes a Release besides its own changes: its inventory (a health verdict, a deletion the garbage
// collector started, drift for selfHeal), the observer's shard Lease coming back, and its Cluster's Ready
// condition (docs/design.md#rollout-wake-ups). Each is a secondary watch of the release controller.
import { healthChanged, healthChangeWakes, healthSettled } from '../../../api/health-wake.ts';
import type { Cluster, Release, ReleaseInventory } from '../../../api/types.ts';
import { releaseKeyOfInventory } from '../../../kube/inventory-read.ts';
import {
  type Controller,
  changed,
  deletionStarted,
  type Informer,
  type KubeObject,
  keyOf,
  type Lease,
  leaseRevived,
  observerLeaseName,
} from '../../../runtime/index.ts';
import { driftAppeared } from '../decide/sync/index.ts';

type Cached<T> = T & KubeObject;

export interface WakeUpSources {
  readonly releases: Informer<Cached<Release>>;
  readonly inventories: Informer<Cached<ReleaseInventory>>;
  readonly leases: Informer<Cached<Lease>>;
  readonly clusters: Informer<Cached<Cluster>>;
  /** How many observer shards hold a Lease each. */
  readonly observerShards: number;
  readonly shardOfRelease: (r: Release | undefined, key: string) => number;
  readonly now: () => number;
}

export function watchWakeUps(controller: Controller<Cached<Release>>, s: WakeUpSources): void {
  const { releases, inventories, leases, clusters, shardOfRelease, now } = s;
  const count = s.observerShards;
  const releaseKeys = (inv: Cached<ReleaseInventory>) => {
    const key = releaseKeyOfInventory(inv);
    return key === undefined ? [] : [key];
  };
  // inventory.HealthChanged wakes a Release whose rollout waits for a verdict; a Failed or RolledBack rollout
  // waits for the interval only (docs/design.md#rollout-wake-ups). Without a failurePolicy it still wakes,
  // for lastHealthy. Once every entry is Healthy, in the finish lane: the reconcile that records the render
  // healthy goes before the first reconciles of a burst of new Releases (docs/design.md#work-queue-priority).
  controller.watch({
    informer: inventories,
    updateFilter: (o, n) => healthChanged(o, n),
    keys: (inv) => releaseKeys(inv).filter((key) => healthChangeWakes(releases.cache.get(key))),
    updatePriority: (_o, n) => (healthSettled(n) ? 'finish' : 'change'),
  });
  // An inventory the garbage collector started deleting: its Release may be gone (see deletion.ts).
  controller.watch({
    informer: inventories,
    updateFilter: deletionStarted,
    keys: releaseKeys,
  });
  // selfHeal: an entry the drift loop flags wakes its Release, whatever the order of the observer's /sync
  // and the inventory update reaching this process.
  controller.watch({
    informer: inventories,
    updateFilter: (o, n) => driftAppeared(o, n),
    keys: (inv) =>
      releaseKeys(inv).filter((key) => releases.cache.get(key)?.spec?.syncPolicy?.selfHeal === true),
  });
  // An observer that comes back (a new holder or acquire time on its shard Lease, or a renewal that lands
  // after the hold lapsed, as read here) may find no health change to report; its Releases are reconciled so
  // a verdict that was Pending (ObserverNotLive) while it was away is read again.
  const holderChanged = changed((l: Cached<Lease>) => [l.spec?.holderIdentity, l.spec?.acquireTime]);
  controller.watch({
    informer: leases,
    updateFilter: (o, n) => holderChanged(o, n) || leaseRevived(o, n, now()),
    keys: (lease) => {
      const shard = Array.from({ length: count }, (_, i) => i).find(
        (i) => observerLeaseName(i) === lease.metadata.name,
      );
      if (shard === undefined) return [];
      return releases.cache
        .list()
        .filter((r) => shardOfRelease(r, keyOf(r)) === shard)
        .map(keyOf);
    },
  });
  controller.watch({
    informer: clusters,
    updateFilter: changed(
      (c: Cached<Cluster>) => c.status?.conditions?.find((x) => x.type === 'Ready')?.status,
    ),
    keys: (c) => releases.cache.byIndex('cluster', keyOf(c)).map(keyOf),
  });
}
