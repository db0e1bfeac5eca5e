// The release controller on the harness: informers on Release (primary), ReleaseInventory, Cluster, the
// observer's shard Leases (liveness for the verdict) and labelled valuesFrom ConfigMaps and Secrets
// (values-watch.ts); the event filters; the shard of a key; and the ReleaseDeps one reconcile uses. What
// the secondary informers wake is in wake-ups.ts.
import type { KubeConfig } from '@kubernetes/client-node';
import {
  ANNOTATION_APPROVED_RENDER,
  ANNOTATION_FORCE_SYNC_AT,
  ANNOTATION_SYNC_REQUESTED_AT,
  API_VERSION,
  PLURAL_INVENTORIES,
  PLURAL_RELEASES,
} from '../../api/constants.ts';
import { clusterKeyOfRelease, releaseClusterIndex, releaseShardSubject } from '../../api/shard.ts';
import type { Release, ReleaseInventory } from '../../api/types.ts';
import { KubeClient } from '../../kube/client.ts';
import {
  assembleInventory,
  BY_INVENTORY_OF,
  inventoryOfIndex,
  partsIndexKey,
} from '../../kube/inventory-read.ts';
import { RenderCache } from '../../render/cache.ts';
import { GitSource } from '../../render/git/source.ts';
import { ChartRepoSource } from '../../render/helm/repo-source.ts';
import { InlineSource } from '../../render/inline.ts';
import { OciSource } from '../../render/oci/source.ts';
import { toolRenderers } from '../../render/tools/renderers.ts';
import {
  anyOf,
  type Controller,
  changed,
  deletionStarted,
  generationChanged,
  type Harness,
  isLeaseLive,
  type KubeObject,
  keyOf,
  type Lease,
  OwnWrites,
  observerLeaseName,
  shardOf,
  splitKey,
} from '../../runtime/index.ts';
import { SecretRenderStore } from '../../store/secrets.ts';
import { ClusterClients } from '../cluster/access.ts';
import { clusterInformer } from '../cluster/controller.ts';
import { eventRecorder } from './act/event-recorder.ts';
import { releaseInventoryOfGoneRelease } from './act/finalizer.ts';
import { resolveTarget, type Tenancy } from './act/target.ts';
import { newProcessMemory, type ReleaseDeps } from './deps.ts';
import { syncHandler } from './reconcile.ts';
import { clusterWaveOf } from './watch/cluster-wave-of.ts';
import { ownManagedFieldsOnly } from './watch/release-cache.ts';
import { PendingSyncRequests } from './watch/sync-requests.ts';
import { watchValuesFrom } from './watch/values-watch.ts';
import { watchWakeUps } from './watch/wake-ups.ts';

export interface ReleaseControllerOptions {
  readonly kubeConfig: KubeConfig;
  /** As whom a Release without spec.serviceAccountName writes locally; no default: say which. */
  readonly tenancy: Tenancy;
  /** Namespace of the shard Leases (the observer's liveness). */
  readonly leaseNamespace: string;
  readonly gitCacheDir: string;
  readonly allowFileUrls?: boolean;
  /** Limit of one git fetch, and of a stalled one (see GitSourceOptions). */
  readonly gitTimeoutMs?: number;
  readonly gitStallMs?: number;
  /** The kustomize and helm CLIs; default: from PATH. */
  readonly kustomizeBinary?: string;
  readonly helmBinary?: string;
  readonly workers?: number;
  /** Work only this shard (static sharding, no leader election). */
  readonly shardIndex?: number;
  readonly shardCount?: number;
  readonly makeClient?: (kc: KubeConfig) => KubeClient;
  /** Shared with the cluster controller; made here when absent. */
  readonly clusterClients?: ClusterClients;
  readonly afterWaveApplied?: (wave: number) => void;
  readonly now?: () => number;
  /**
   * Resync of the Release informer in ms (default 10 min; 0: none): with syncPolicy.interval 0 it is the
   * only periodic reconcile (docs/design.md#rollout-wake-ups).
   */
  readonly resyncMs?: number;
}

const DEFAULT_RESYNC_MS = 600_000;
// Its own name: the observer's loops index the same informer by namespace when they share a harness.
const BY_NAMESPACE = 'release-controller-namespace';
/** A render this heavy (RenderCache's estimate) is worth a memory return once it is dropped. */
const LARGE_RENDER_BYTES = 16 * 1024 * 1024;
const base = `/apis/${API_VERSION}`;
/** The harness's informers hold structurally typed objects; convoy's interfaces are stricter. */
type Cached<T> = T & KubeObject;
type CRelease = Cached<Release>;
type CInventory = Cached<ReleaseInventory>;
const WATCHED_ANNOTATIONS = [
  ANNOTATION_SYNC_REQUESTED_AT,
  ANNOTATION_APPROVED_RENDER,
  ANNOTATION_FORCE_SYNC_AT,
];

export function registerReleaseController(
  harness: Harness,
  opts: ReleaseControllerOptions,
): {
  controller: Controller<CRelease>;
  deps: ReleaseDeps;
  /** The shard of a Release key (the notification controller works the same keys on the same shards). */
  shardOfKey: (key: string) => number;
} {
  const releases = harness.informer<CRelease>({
    path: `${base}/${PLURAL_RELEASES}`,
    // The status writer compares against the controller's own managedFields entry of the cached Release;
    // the other managers' entries (the observer's, the API's, whoever wrote the spec) nothing here reads.
    stripManagedFields: false,
    transform: ownManagedFieldsOnly,
    resyncMs: opts.resyncMs ?? DEFAULT_RESYNC_MS,
  });
  const inventories = harness.informer<CInventory>({
    path: `${base}/${PLURAL_INVENTORIES}`,
    stripManagedFields: true,
  });
  // a large inventory is split in parts (docs/design.md#inventory-parts): found by their label
  inventories.addIndex(BY_INVENTORY_OF, inventoryOfIndex);
  // the cluster controller's informer (shared by path), which keeps managedFields for its status writer
  const clusters = clusterInformer(harness);
  const leases = harness.informer<Cached<Lease>>({
    path: `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(opts.leaseNamespace)}/leases`,
    stripManagedFields: true,
  });
  releases.addIndex('cluster', releaseClusterIndex);
  // The cluster wave gate's peers are the Releases of one namespace: an index, not a scan of every Release.
  releases.addIndex(BY_NAMESPACE, (r) => (r.metadata.namespace ? [r.metadata.namespace] : []));

  const count = opts.shardCount ?? harness.shardCount;
  // A Release gone from the cache: its key's namespace (the deletion of its inventory is still worked).
  const shardOfRelease = (r: Release | undefined, key: string): number => {
    if (r === undefined)
      return shardOf({ kind: 'namespace', namespace: splitKey(key).namespace ?? '' }, count);
    const cluster = clusterKeyOfRelease(r);
    return shardOf(
      releaseShardSubject(r, cluster === undefined ? undefined : clusters.cache.get(cluster)),
      count,
    );
  };

  const make = opts.makeClient ?? ((kc: KubeConfig) => new KubeClient(kc));
  const clusterClients =
    opts.clusterClients ?? new ClusterClients({ kubeConfig: opts.kubeConfig, makeClient: make });
  const now = opts.now ?? Date.now;
  // The controller's own writes, read back before the cache has them (see runtime/own-writes.ts).
  const written = new OwnWrites<Release>();
  written.follow(releases);
  const log = harness.log.child({ controller: 'release' });
  const events = eventRecorder(clusterClients.local, harness.metrics.registry, log);
  // One render cache for the process; a deleted Release's renders leave it at once, and a large one's
  // memory is given back soon after (docs/design.md#large-renders).
  const renderCache = new RenderCache({
    onDropped: (bytes) => {
      if (bytes >= LARGE_RENDER_BYTES) harness.requestMemoryReturn();
    },
  });
  const deps: ReleaseDeps = {
    local: clusterClients.local,
    // What this process remembers between reconciles; a restart starts from what the API says.
    memory: newProcessMemory(),
    store: new SecretRenderStore(clusterClients.local),
    sources: {
      inline: InlineSource,
      git: new GitSource({
        cacheDir: opts.gitCacheDir,
        allowFileUrls: opts.allowFileUrls ?? false,
        ...(opts.gitTimeoutMs === undefined ? {} : { timeoutMs: opts.gitTimeoutMs }),
        ...(opts.gitStallMs === undefined ? {} : { stallMs: opts.gitStallMs }),
      }),
      oci: new OciSource(),
      chart: new ChartRepoSource(),
    },
    renderers: toolRenderers(
      {
        ...(opts.kustomizeBinary === undefined ? {} : { kustomize: opts.kustomizeBinary }),
        ...(opts.helmBinary === undefined ? {} : { helm: opts.helmBinary }),
      },
      renderCache,
    ),
    resolveTarget: (release) =>
      resolveTarget(release, { clients: clusterClients, clusters: clusters.cache, tenancy: opts.tenancy }),
    observerLive: (release) => {
      const shard = shardOfRelease(release, `${release.metadata.namespace}/${release.metadata.name}`);
      return isLeaseLive(leases.cache.get(`${opts.leaseNamespace}/${observerLeaseName(shard)}`), now());
    },
    cachedInventory: (ns, name) =>
      assembleInventory(
        { namespace: ns, name },
        inventories.cache.get(`${ns}/${name}`),
        inventories.cache.byIndex(BY_INVENTORY_OF, partsIndexKey(ns, name)),
      ),
    clusterWave: clusterWaveOf(releases.cache, clusters.cache, BY_NAMESPACE),
    now,
    log,
    events,
    ...(opts.afterWaveApplied === undefined ? {} : { afterWaveApplied: opts.afterWaveApplied }),
  };

  // A changed sync-requested-at or force-sync-at is a request: it aborts the reconcile in flight, and the
  // fetch that answers it reads the source anew (sync-requests.ts).
  const syncRequested = changed((r: CRelease) =>
    [ANNOTATION_SYNC_REQUESTED_AT, ANNOTATION_FORCE_SYNC_AT].map((a) => r.metadata?.annotations?.[a]),
  );
  const requests = new PendingSyncRequests();
  releases.addHandlers({
    update: (o, n) => {
      if (o !== n && syncRequested(o, n)) requests.seen(keyOf(n));
    },
    delete: (o) => {
      requests.forget(keyOf(o));
      renderCache.forget(keyOf(o));
    },
  });
  const controller = harness.controller<CRelease>({
    name: 'release',
    primary: releases,
    workers: opts.workers ?? 4,
    // Spec changes, deletion and the three request annotations; never status-only writes.
    updateFilter: anyOf(
      generationChanged,
      deletionStarted,
      changed((r: CRelease) => WATCHED_ANNOTATIONS.map((a) => r.metadata?.annotations?.[a])),
    ),
    ...(opts.shardIndex === undefined
      ? { shardOfKey: (key: string) => shardOfRelease(releases.cache.get(key), key) }
      : {}),
    queue: { baseDelayMs: 1000, maxDelayMs: 60_000, backoffJitter: 0.2 },
    // A fetch stuck on a slow source must not hold back the deletion or a requested sync of its Release.
    supersedes: anyOf(deletionStarted, syncRequested),
    reconcile: async (key, { log, signal }) => {
      const release = written.fresh(key, releases.cache.get(key));
      if (opts.shardIndex !== undefined && shardOfRelease(release, key) !== opts.shardIndex)
        return { kind: 'done' };
      const { namespace = '', name } = splitKey(key);
      try {
        await releaseInventoryOfGoneRelease(namespace, name, release, { ...deps, log });
      } catch (error) {
        return { kind: 'error', error };
      }
      const syncRequest = requests.pending(key);
      return await syncHandler(release, {
        ...deps,
        log,
        signal,
        noteWritten: (replaced, object) => written.remember(key, replaced, object),
        ...(syncRequest === undefined ? {} : { syncRequest }),
      });
    },
  });
  watchWakeUps(controller, {
    releases,
    inventories,
    leases,
    clusters,
    observerShards: count,
    shardOfRelease,
    now,
  });
  watchValuesFrom(harness, controller, (ns) => releases.cache.byIndex(BY_NAMESPACE, ns));
  return { controller, deps, shardOfKey: (key) => shardOfRelease(releases.cache.get(key), key) };
}
