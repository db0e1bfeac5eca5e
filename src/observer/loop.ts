// The scaffolding the observer's two per-Release loops (health, drift) share on the harness: the Release,
// ReleaseInventory and Cluster informers and the keys their events add, the shard gate, reads through this
// process's own writes, and the pass/write/sync-request counters with their retry results. What a pass
// does, and in which order, stays in each loop's own controller.

import { Counter, type Registry } from 'prom-client';
import { GROUP, VERSION } from '../api/constants.ts';
import { clusterKeyOfRelease, releaseClusterIndex, releaseShardSubject } from '../api/shard.ts';
import type { Cluster, Release, ReleaseInventory } from '../api/types.ts';
import type { KubeClient } from '../kube/client.ts';
import type { MergedInventory } from '../kube/inventory-parts.ts';
import {
  assembleInventory,
  BY_INVENTORY_OF,
  inventoryOfIndex,
  partsIndexKey,
  releaseKeyOfInventory,
} from '../kube/inventory-read.ts';
import { nameOf, namespaceOf } from '../lib/names.ts';
import {
  type Controller,
  type Harness,
  type Informer,
  type KubeObject,
  keyOf,
  type Logger,
  OwnWrites,
  type ReconcileResult,
  shardOf,
  type UpdateFilter,
} from '../runtime/index.ts';
import type { SyncVia } from './health/loop/sync-request.ts';
import { clusterUpdateMatters } from './loop-keys.ts';
import type { StatusPart } from './status-parts.ts';
import { type ObserverStatusWriter, queueStatusLoop } from './status-writer.ts';
import type { TargetWatches } from './target-watches.ts';

const base = `/apis/${GROUP}/${VERSION}`;
/** convoy's typed objects as the harness caches them (its KubeObject has an index signature). */
export type K<T> = T & KubeObject;
/** Retry after a 409 from an apply whose cached resourceVersion was stale (the informer catches up). */
const CONFLICT_RETRY_MS = 500;
/**
 * Cap of the per-key error backoff (the queue's default is 1000 s). A failed wake-up is retried through
 * this backoff, and an edge kept through a long API outage must still go out soon after the API is back.
 */
const ERROR_BACKOFF_MAX_MS = 30_000;

/** What the health and drift loops are built from: cmd/observer hands both the same object. */
export interface ObserverLoopOptions {
  /** Client of the cluster the observer runs in (Releases, inventories, the render store, rule sets). */
  readonly client: KubeClient;
  readonly workers?: number;
  /** Informer resync of Releases, when this loop is the first to ask for that informer (0: never). */
  readonly resyncMs?: number;
  readonly now?: () => Date;
  readonly random?: () => number;
  /** Entries of one kind and namespace from which one LIST replaces their GETs (default 20; 0: never list). */
  readonly listThreshold?: number;
  /** Where wake-ups go (default: POST /sync through kube-apiserver's aggregation layer). */
  readonly sync?: SyncVia;
  /** Watch caches of the target clusters, shared by the loops (default: every read goes to the API). */
  readonly watches?: TargetWatches;
  /** The status writer shared by the loops (default: one of each loop's own). */
  readonly status?: ObserverStatusWriter;
}

export interface ReleaseLoopSpec {
  /** The controller's name in logs and the harness metrics. */
  readonly name: string;
  /** Default 4. */
  readonly workers?: number;
  /** Informer resync of Releases, when this loop is the first to ask for that informer (default 0: none). */
  readonly resyncMs?: number;
  /** Release → Cluster index; its own name per loop, as the loops of one process share the informer. */
  readonly byClusterIndex: string;
  readonly releaseUpdateMatters: UpdateFilter<K<Release>>;
  readonly inventoryUpdateMatters: UpdateFilter<K<ReleaseInventory>>;
  readonly reconcile: (key: string, log: Logger) => Promise<ReconcileResult>;
  /** The target watches this loop reads through (under its name); forgetting a Release forgets it there. */
  readonly watches?: TargetWatches;
  /**
   * The status writer this loop posts its part of a Release's status to, shared with the other loop
   * (docs/design.md#observer-status): it learns of this loop's passes and queue, and each write it makes
   * lands in this loop's memo of its own writes; `wrote` counts the writes that carried this loop's part.
   * Absent: the loop writes no Release status (the verification loop writes only the inventory).
   */
  readonly status?: {
    readonly writer: ObserverStatusWriter;
    readonly part: StatusPart;
    readonly wrote: () => void;
  };
}

/**
 * One loop's controller keyed by Release namespace/name, woken by its Release, its inventory (same key)
 * and its Cluster's Ready condition, and gated by the Release's shard; plus the memo of this loop's own
 * writes of the Release status and the inventory, which its reads go through.
 */
export class ReleaseLoop {
  readonly controller: Controller<K<Release>>;
  readonly releases: Informer<K<Release>>;
  readonly inventories: Informer<K<ReleaseInventory>>;
  readonly clusters: Informer<K<Cluster>>;
  readonly #harness: Harness;
  readonly #writtenRelease = new OwnWrites<Release>();
  readonly #writtenInventory = new OwnWrites<ReleaseInventory>();
  /** The index of the parts of each Release's inventory (docs/design.md#inventory-parts), one per loop. */
  readonly #byParts: string;
  readonly #status: ReleaseLoopSpec['status'] | undefined;
  readonly #name: string;
  readonly #watches: TargetWatches | undefined;

  constructor(harness: Harness, spec: ReleaseLoopSpec) {
    this.#harness = harness;
    this.#status = spec.status;
    this.#name = spec.name;
    this.#watches = spec.watches;
    this.releases = harness.informer<K<Release>>({ path: `${base}/releases`, resyncMs: spec.resyncMs ?? 0 });
    this.inventories = harness.informer<K<ReleaseInventory>>({ path: `${base}/releaseinventories` });
    this.#writtenRelease.follow(this.releases);
    this.#writtenInventory.follow(this.inventories);
    this.clusters = harness.informer<K<Cluster>>({ path: `${base}/clusters` });
    this.#byParts = `${spec.name}:${BY_INVENTORY_OF}`;
    this.inventories.addIndex(this.#byParts, inventoryOfIndex);
    const releases = this.releases;
    releases.addIndex(spec.byClusterIndex, releaseClusterIndex);
    this.controller = harness.controller<K<Release>>({
      name: spec.name,
      primary: releases,
      workers: spec.workers ?? 4,
      updateFilter: spec.releaseUpdateMatters,
      shardOfKey: (key) => this.shardOfKey(key),
      reconcile: async (key, { log }) => {
        try {
          return await spec.reconcile(key, log);
        } finally {
          spec.status?.writer.passEnded(spec.status.part, key);
        }
      },
      queue: { maxDelayMs: ERROR_BACKOFF_MAX_MS },
    });
    const status = spec.status;
    status?.writer.register(
      status.part,
      queueStatusLoop(this.controller.queue, (key, written, carried) => {
        if (carried) status.wrote();
        this.wroteRelease(key, this.release(key), written);
      }),
    );
    this.controller
      .watch<K<ReleaseInventory>>({
        informer: this.inventories,
        updateFilter: spec.inventoryUpdateMatters,
        // a part wakes its Release
        keys: (inv) => {
          const key = releaseKeyOfInventory(inv);
          return key === undefined ? [] : [key];
        },
      })
      .watch<K<Cluster>>({
        informer: this.clusters,
        updateFilter: clusterUpdateMatters,
        keys: (c) => releases.cache.byIndex(spec.byClusterIndex, keyOf(c)).map((r) => keyOf(r)),
      });
  }

  /** The shard gate's answer for a key; undefined once the Release is gone from the cache. */
  shardOfKey(key: string): number | undefined {
    const r = this.releases.cache.get(key);
    return r === undefined
      ? undefined
      : shardOf(releaseShardSubject(r, this.clusterOf(r)), this.#harness.shardCount);
  }

  /** The Cluster the Release names, as cached (undefined: none named, or not cached). */
  clusterOf(release: Release): Cluster | undefined {
    const key = clusterKeyOfRelease(release);
    return key === undefined ? undefined : this.clusters.cache.get(key);
  }

  /** The cached Release, or this loop's own newer write of its status. */
  release(key: string): Release | undefined {
    return this.#writtenRelease.fresh(key, this.releases.cache.get(key));
  }

  /** The cached inventory of Release `key`, every part, each part as cached or as this loop last wrote it. */
  inventory(key: string): MergedInventory | undefined {
    const [namespace = '', name = ''] = key.split('/');
    const head = this.#writtenInventory.fresh(key, this.inventories.cache.get(key));
    const parts = this.inventories.cache
      .byIndex(this.#byParts, partsIndexKey(namespace, name))
      .map((o) => this.#writtenInventory.fresh(keyOf(o), o) ?? o);
    return assembleInventory({ namespace, name }, head, parts);
  }

  wroteRelease(key: string, replaced: Release | undefined, written: Release): Release {
    return this.#writtenRelease.remember(key, replaced, written);
  }

  /** Remembers one inventory object (any part) this loop wrote over `replaced` (what it read). */
  wroteInventoryObject(replaced: ReleaseInventory | undefined, written: ReleaseInventory): void {
    const key = `${namespaceOf(written)}/${nameOf(written)}`;
    this.#writtenInventory.remember(key, replaced, written);
  }

  /** Remembers the parts this loop wrote; the inventory `read` with them in place of what they replaced. */
  wroteInventory(read: MergedInventory, written: readonly ReleaseInventory[]): MergedInventory {
    const objects = new Map(read.objects);
    for (const w of written) {
      const index = [...objects].find(([, o]) => o.metadata.name === w.metadata.name)?.[0];
      this.wroteInventoryObject(index === undefined ? undefined : objects.get(index), w);
      if (index !== undefined) objects.set(index, w);
    }
    const namespace = namespaceOf(read.inventory);
    const name = nameOf(read.inventory);
    return assembleInventory({ namespace, name }, objects.get(0), [...objects.values()]) ?? read;
  }

  /** Drops the memo of a Release that is gone or being deleted. */
  forget(key: string): void {
    this.#writtenInventory.forget(key);
    const [namespace = '', name = ''] = key.split('/');
    for (const o of this.inventories.cache.byIndex(this.#byParts, partsIndexKey(namespace, name)))
      this.#writtenInventory.forget(keyOf(o));
    this.#writtenRelease.forget(key);
    this.#status?.writer.forget(key);
    this.#watches?.forget(this.#name, key);
  }
}

/** The counts both loops keep in `stats` for tests and the bench; the same as their metrics. */
export interface LoopStats {
  passes: number;
  writes: number;
  syncRequests: number;
}

/**
 * A loop's passes by result, its writes by object and its wake-ups sent, as metrics and in `stats`. Every
 * loop names them alike: convoy_<loop>_passes_total, convoy_<loop>_writes_total and
 * convoy_<loop>_sync_requests_total (loop: health, drift, verification).
 */
export class LoopCounters<Result extends string, Written extends string> {
  readonly #stats: LoopStats;
  readonly #passes: Counter<'result'>;
  readonly #writes: Counter<'object'>;
  readonly #syncs: Counter;

  /** `syncsHelp`: what a wake-up of this loop is, the one help text that is not the same for every loop. */
  constructor(registry: Registry, stats: LoopStats, loop: string, syncsHelp: string) {
    const registers = [registry];
    const Loop = `${loop.charAt(0).toUpperCase()}${loop.slice(1)}`;
    this.#stats = stats;
    this.#passes = new Counter({
      name: `convoy_${loop}_passes_total`,
      help: `${Loop} passes, by result`,
      labelNames: ['result'],
      registers,
    });
    this.#writes = new Counter({
      name: `convoy_${loop}_writes_total`,
      help: `Writes of the ${loop} loop, by object`,
      labelNames: ['object'],
      registers,
    });
    this.#syncs = new Counter({ name: `convoy_${loop}_sync_requests_total`, help: syncsHelp, registers });
  }

  /** Exports these write series and the wake-up count as 0 before the first one happens. */
  startAtZero(objects: readonly Written[]): void {
    for (const object of objects) this.#writes.inc({ object }, 0);
    this.#syncs.inc(0);
  }

  pass(result: Result | 'conflict'): void {
    this.#stats.passes++;
    this.#passes.inc({ result });
  }

  /** Counts the pass; no requeue of its own. */
  done(result: Result): ReconcileResult {
    this.pass(result);
    return { kind: 'done' };
  }

  /** A 409 from a write whose cached resourceVersion was stale: counted, retried soon. */
  conflict(log: Logger): ReconcileResult {
    log.debug('inventory changed since it was cached; retrying');
    this.pass('conflict');
    return { kind: 'requeueAfter', ms: CONFLICT_RETRY_MS };
  }

  wrote(object: Written): void {
    this.#stats.writes++;
    this.#writes.inc({ object });
  }

  synced(): void {
    this.#stats.syncRequests++;
    this.#syncs.inc();
  }
}
