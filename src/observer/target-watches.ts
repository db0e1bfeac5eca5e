// The observer's watches of target clusters (docs/design.md#watched-reads): one watch (./target-watch.ts)
// per target cluster and kind that some inventory records, selecting the objects convoy applied by the
// convoy.kumodo.io/release label. The health and drift loops read live objects through `readerOf`: from
// the cache where ./cache-read.ts trusts it, from the API (../live-reads.ts) for the rest, and a watch
// event on an object a Release records wakes that Release in the loops that asked for it (onChange).
// A watch starts with the first Release that reads its kind and stops with the last one. The Pods of a
// namespace where a workload is not available (the health loop's why, ./health/pod-why.ts) are watched
// the same way, per target cluster and namespace, while some Release reads them (`podReaderOf`).
import { Counter, Gauge, type Registry } from 'prom-client';
import { LABEL_RELEASE } from '../api/constants.ts';
import type { KubeClient } from '../kube/client.ts';
import { errorMessage } from '../lib/errors.ts';
import type { KubeObject as CachedObject, Logger } from '../runtime/index.ts';
import { decideCacheRead, floorOf } from './cache-read.ts';
import { slimPod } from './health/pod-why.ts';
import type { KubeObject } from './health/types.ts';
import {
  type LiveRead,
  type LiveReads,
  type LiveRef,
  type ReadLive,
  type ReadOptions,
  readLive,
} from './live-reads.ts';
import { POD_FIELD_SELECTOR, type PodsRead, type ReadPods, readPods } from './pod-reads.ts';
import { releaseLabelOf, TargetWatch } from './target-watch.ts';

/** Who reads: one loop's Release. */
interface Reader {
  /** The loop, e.g. "health": events wake the Release in this loop. */
  readonly loop: string;
  /** namespace/name of the Release. */
  readonly releaseKey: string;
  /** Its convoy.kumodo.io/release label value. */
  readonly label: string;
}

export type WatchedReads = LiveReads & { readonly cached: number };

export interface TargetWatchesOptions {
  readonly registry: Registry;
  readonly log: Logger;
  readonly now?: () => number;
  /** Label selector of the watches (default: the release label exists). */
  readonly labelSelector?: string;
}

const objectKey = (r: LiveRef) => (r.namespace ? `${r.namespace}/${r.name}` : r.name);

/**
 * How long a read waits for a watch's first LIST before reading from the API. After a restart at 10,000
 * Releases the passes that came before the ConfigMap watch's LIST of 100,000 objects had ended sent
 * 43,161 GETs; waiting, they read the cache (docs/design.md#watched-reads).
 */
export const FIRST_SYNC_WAIT_MS = 30_000;

export class TargetWatches {
  readonly #o: TargetWatchesOptions;
  readonly #watches = new Map<string, TargetWatch>();
  /** Reader key → the reader and the watch ids it reads through. */
  readonly #readers = new Map<string, { readonly reader: Reader; ids: Set<string> }>();
  readonly #wakers = new Map<string, (releaseKey: string) => void>();
  /** Pod watches by client and namespace, and the reader keys reading each. */
  readonly #podWatches = new Map<string, { readonly watch: TargetWatch; readonly readers: Set<string> }>();
  /** Reader key → the Pod watch ids it reads. */
  readonly #podReaders = new Map<string, Set<string>>();
  readonly #clientIds = new WeakMap<KubeClient, number>();
  #nextClient = 0;
  readonly #fallbacks: Counter<'kind'>;
  readonly #reads: Counter<'from'>;
  readonly #running: Gauge;

  constructor(opts: TargetWatchesOptions) {
    this.#o = opts;
    const registers = [opts.registry];
    this.#fallbacks = new Counter({
      name: 'convoy_observer_watch_fallbacks_total',
      help: 'Watches of a target kind given up for reads from the API (its LIST was refused), by kind',
      labelNames: ['kind'],
      registers,
    });
    this.#reads = new Counter({
      name: 'convoy_observer_live_reads_total',
      help: 'Live objects read, from a watch cache or from the API',
      labelNames: ['from'],
      registers,
    });
    this.#running = new Gauge({
      name: 'convoy_observer_target_watches',
      help: 'Watches of target kinds running',
      registers,
    });
    for (const from of ['cache', 'api']) this.#reads.inc({ from }, 0);
  }

  /** A watch event on an object `loop` reads for a Release calls `wake` with the Release's key. */
  onChange(loop: string, wake: (releaseKey: string) => void): void {
    this.#wakers.set(loop, wake);
  }

  /** How `loop` reads the live objects of the Release `releaseKey` (labelled opts.releaseLabel). */
  readerOf(loop: string, releaseKey: string): ReadLive {
    return (client, refs, opts) =>
      this.read({ loop, releaseKey, label: opts.releaseLabel }, client, refs, opts);
  }

  /**
   * How `loop` reads the Pods of namespaces for the Release `releaseKey`: from a Pod watch of each
   * namespace once it has synced, from the API (../pod-reads.ts) before. The namespaces of the last call
   * are the ones its watches stay for.
   */
  podReaderOf(loop: string, releaseKey: string): ReadPods {
    return (client, namespaces) => this.readPods(`${loop}|${releaseKey}`, client, namespaces);
  }

  async readPods(
    rk: string,
    client: KubeClient,
    namespaces: readonly string[],
  ): Promise<ReadonlyMap<string, PodsRead>> {
    const ids = new Set<string>();
    const out = new Map<string, PodsRead>();
    const fresh: string[] = [];
    for (const namespace of namespaces) {
      const id = this.#idOf(client, 'v1', `Pod ${namespace}`);
      ids.add(id);
      const w = this.#podWatch(id, client, namespace, rk);
      const cached = w.list();
      if (cached === undefined) fresh.push(namespace);
      else out.set(namespace, { kind: 'pods', pods: cached });
    }
    for (const id of this.#podReaders.get(rk) ?? []) if (!ids.has(id)) this.#releasePods(id, rk);
    if (ids.size === 0) this.#podReaders.delete(rk);
    else this.#podReaders.set(rk, ids);
    if (fresh.length === 0) return out;
    for (const [namespace, read] of await readPods(client, fresh)) out.set(namespace, read);
    return out;
  }

  /** Reads refs for the reader from its target cluster; the reader's watches become these kinds. */
  async read(
    reader: Reader,
    client: KubeClient,
    refs: readonly LiveRef[],
    opts: ReadOptions,
  ): Promise<WatchedReads> {
    const watches = refs.map((r) => this.#watch(client, r.apiVersion, r.kind));
    this.#use(reader, new Set(watches.map((w) => this.#idOf(w.client, w.apiVersion, w.kind))));
    await Promise.all([...new Set(watches)].map((w) => w.firstSync(FIRST_SYNC_WAIT_MS)));
    const reads: LiveRead[] = new Array(refs.length);
    const fresh: number[] = [];
    refs.forEach((r, i) => {
      const w = watches[i] as TargetWatch;
      const cached = w.cached(objectKey(r));
      const d = decideCacheRead({
        watch: w.state,
        renderRef: r.renderRef,
        floor: floorOf(w.floors.get(objectKey(r)), r),
        cachedResourceVersion: cached?.metadata?.resourceVersion,
      });
      if (d.kind === 'cache') reads[i] = { kind: 'found', object: cached as unknown as KubeObject };
      else fresh.push(i);
    });
    const cached = refs.length - fresh.length;
    this.#reads.inc({ from: 'cache' }, cached);
    this.#reads.inc({ from: 'api' }, fresh.length);
    if (fresh.length === 0) return { kind: 'read', reads, lists: 0, gets: 0, cached };
    const live = await readLive(
      client,
      fresh.map((i) => refs[i] as LiveRef),
      opts,
    );
    if (live.kind === 'unreachable') return { ...live, cached };
    fresh.forEach((i, j) => {
      const got = live.reads[j] as LiveRead;
      reads[i] = got;
      const r = refs[i] as LiveRef;
      const rv = got.kind === 'found' ? got.object.metadata?.resourceVersion : undefined;
      if (r.renderRef !== undefined && typeof rv === 'string')
        (watches[i] as TargetWatch).floors.set(objectKey(r), { renderRef: r.renderRef, resourceVersion: rv });
    });
    return { kind: 'read', reads, lists: live.lists, gets: live.gets, cached };
  }

  /** The reader is done (its Release is gone): the watches nobody else reads through stop. */
  forget(loop: string, releaseKey: string): void {
    const rk = `${loop}|${releaseKey}`;
    this.#forgetPods(rk);
    const entry = this.#readers.get(rk);
    if (entry === undefined) return;
    this.#readers.delete(rk);
    for (const id of entry.ids) this.#release(id, rk, entry.reader.label);
  }

  #forgetPods(rk: string): void {
    for (const id of this.#podReaders.get(rk) ?? []) this.#releasePods(id, rk);
    this.#podReaders.delete(rk);
  }

  async stop(): Promise<void> {
    const stopping = [...this.#watches.values(), ...[...this.#podWatches.values()].map((p) => p.watch)].map(
      (w) => w.stop(),
    );
    this.#watches.clear();
    this.#readers.clear();
    this.#podWatches.clear();
    this.#podReaders.clear();
    await Promise.all(stopping);
  }

  /** For tests: `<apiVersion> <kind>` of every watch not given up. */
  watching(): readonly string[] {
    return [...this.#watches.values()]
      .filter((w) => w.state !== 'fallback')
      .map((w) => `${w.apiVersion} ${w.kind}`);
  }

  /** For tests: an object as a watch caches it. */
  cachedObject(client: KubeClient, apiVersion: string, kind: string, key: string): CachedObject | undefined {
    return this.#watches.get(this.#idOf(client, apiVersion, kind))?.cached(key);
  }

  /** For tests: how many Pods of `namespace` a synced Pod watch caches; undefined without one. */
  cachedPods(client: KubeClient, namespace: string): number | undefined {
    return this.#podWatches.get(this.#idOf(client, 'v1', `Pod ${namespace}`))?.watch.list()?.length;
  }

  #idOf(client: KubeClient, apiVersion: string, kind: string): string {
    let n = this.#clientIds.get(client);
    if (n === undefined) {
      n = this.#nextClient++;
      this.#clientIds.set(client, n);
    }
    return `${n}|${apiVersion}|${kind}`;
  }

  #watch(client: KubeClient, apiVersion: string, kind: string): TargetWatch {
    const id = this.#idOf(client, apiVersion, kind);
    const known = this.#watches.get(id);
    if (known !== undefined) {
      known.retryIfDue();
      return known;
    }
    const w: TargetWatch = new TargetWatch(client, apiVersion, kind, {
      log: this.#o.log.child({ watch: `${apiVersion} ${kind}` }),
      labelSelector: this.#o.labelSelector ?? LABEL_RELEASE,
      changed: (o) => this.#changed(w, o),
      running: (delta) => this.#running.inc(delta),
      fellBack: (k) => this.#fallbacks.inc({ kind: k }),
      now: this.#o.now ?? Date.now,
    });
    this.#watches.set(id, w);
    return w;
  }

  #podWatch(id: string, client: KubeClient, namespace: string, rk: string): TargetWatch {
    const known = this.#podWatches.get(id);
    if (known !== undefined) {
      known.readers.add(rk);
      known.watch.retryIfDue();
      return known.watch;
    }
    // No wake-ups: the re-check backoff already comes back for a workload that is not available.
    const watch = new TargetWatch(client, 'v1', 'Pod', {
      log: this.#o.log.child({ watch: `v1 Pod`, namespace }),
      namespace,
      fieldSelector: POD_FIELD_SELECTOR,
      transform: (o) => slimPod(o as unknown as KubeObject) as unknown as CachedObject,
      changed: () => {},
      running: (delta) => this.#running.inc(delta),
      fellBack: (k) => this.#fallbacks.inc({ kind: k }),
      now: this.#o.now ?? Date.now,
    });
    this.#podWatches.set(id, { watch, readers: new Set([rk]) });
    return watch;
  }

  #releasePods(id: string, rk: string): void {
    const p = this.#podWatches.get(id);
    if (p === undefined) return;
    p.readers.delete(rk);
    if (p.readers.size > 0) return;
    this.#podWatches.delete(id);
    p.watch
      .stop()
      .catch((err: unknown) => this.#o.log.warn({ err: errorMessage(err), id }, 'stopping a watch'));
  }

  #use(reader: Reader, ids: Set<string>): void {
    const rk = `${reader.loop}|${reader.releaseKey}`;
    const prior = this.#readers.get(rk);
    for (const id of ids) {
      const byLabel = (this.#watches.get(id) as TargetWatch).byLabel;
      const set = byLabel.get(reader.label) ?? new Set<string>();
      set.add(rk);
      byLabel.set(reader.label, set);
    }
    if (prior !== undefined) {
      for (const id of prior.ids) if (!ids.has(id)) this.#release(id, rk, prior.reader.label);
    }
    this.#readers.set(rk, { reader, ids });
  }

  #release(id: string, rk: string, label: string): void {
    const w = this.#watches.get(id);
    if (w === undefined) return;
    const set = w.byLabel.get(label);
    set?.delete(rk);
    if (set?.size === 0) w.byLabel.delete(label);
    if (w.byLabel.size > 0) return;
    this.#watches.delete(id);
    w.stop().catch((err: unknown) => this.#o.log.warn({ err: errorMessage(err), id }, 'stopping a watch'));
  }

  #changed(w: TargetWatch, o: CachedObject): void {
    const label = releaseLabelOf(o);
    if (label === undefined) return;
    for (const rk of w.byLabel.get(label) ?? []) {
      const entry = this.#readers.get(rk);
      if (entry !== undefined) this.#wakers.get(entry.reader.loop)?.(entry.reader.releaseKey);
    }
  }
}
