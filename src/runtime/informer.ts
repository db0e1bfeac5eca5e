// An informer: LIST then WATCH one resource into an indexed cache, delivering add/update/delete
// to handlers. Unlike client-node's informer it never stops on its own: any failure (apiserver
// restart, dropped connection) is retried with capped, jittered backoff, resuming the watch from
// the last resourceVersion; a 410 Gone (compacted or too-old version) relists and diffs the
// result against the cache, so changes made while it was away become add/update/delete events.
// A periodic resync re-delivers every cached object as update(obj, obj).
import type { Logger } from 'pino';
import type { ErrorOrigin } from '../kube/errors.ts';
import { Cache, type CacheReader, keyOf } from './cache.ts';
import { type Clock, realClock, type TimerHandle } from './clock.ts';
import type { KubeObject } from './filters.ts';
import { exponentialBackoff, jittered, type Random } from './jitter.ts';
import { isGone, type Transport, type WatchEvent } from './transport.ts';

export type EventHandlers<T> = {
  /** initialList: the object came with the first LIST after a start, not from a change seen since. */
  readonly add?: (obj: T, initialList: boolean) => void;
  readonly update?: (oldObj: T, newObj: T) => void;
  readonly delete?: (obj: T) => void;
};

export type InformerOptions<T extends KubeObject = KubeObject> = {
  /** Collection path, e.g. /api/v1/configmaps or /apis/convoy.kumodo.io/v1alpha1/namespaces/x/releases. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Re-deliver every cached object as an update at this interval (0: never). */
  readonly resyncMs?: number;
  /** LIST page size. */
  readonly pageSize?: number;
  /** Drop metadata.managedFields before caching (they are often the larger half of an object). */
  readonly stripManagedFields?: boolean;
  /** Applied to every object before it is cached (after stripManagedFields), e.g. to drop more fields. */
  readonly transform?: (obj: T) => T;
  readonly backoffBaseMs?: number;
  readonly backoffMaxMs?: number;
  /** Upper bound of a single watch; the server ends it after a random part of this. */
  readonly watchTimeoutSeconds?: number;
  readonly clock?: Clock;
  readonly random?: Random;
  readonly log?: Logger;
  readonly hooks?: InformerHooks;
};

/** Why a full LIST is made: the first one, or a 410 on the version (or continue token) asked for. */
export type Relist =
  | { readonly cause: 'start' }
  | {
      readonly cause: 'gone';
      /** The HTTP status, or the code of the watch ERROR event: 410. */
      readonly status: number;
      /** An HTTP answer, or an ERROR event inside a 200 watch stream. */
      readonly origin: ErrorOrigin;
      /** The Status reason, e.g. Expired. */
      readonly reason: string;
      /** Which request got the 410. */
      readonly request: 'list' | 'watch';
      /** The resourceVersion that request resumed from (undefined for a LIST). */
      readonly resourceVersion: string | undefined;
    };

export type InformerHooks = {
  readonly onError?: (error: unknown) => void;
  /** Called before every full LIST, with its cause. */
  readonly onRelist?: (relist: Relist) => void;
};

type ListResult = { metadata?: { resourceVersion?: string; continue?: string }; items?: KubeObject[] };

export class Informer<T extends KubeObject = KubeObject> {
  readonly #transport: Transport;
  readonly #opts: InformerOptions<T>;
  readonly #cache = new Cache<T>();
  readonly #handlers: EventHandlers<T>[] = [];
  readonly #clock: Clock;
  readonly #random: Random;
  readonly #stop = new AbortController();
  #synced = false;
  #syncWaiters: Array<() => void> = [];
  #resourceVersion: string | undefined;
  #loop: Promise<void> | undefined;
  #resyncTimer: TimerHandle | undefined;
  #sleepTimer: { handle: TimerHandle; wake: () => void } | undefined;

  constructor(transport: Transport, opts: InformerOptions<T>) {
    this.#transport = transport;
    this.#opts = opts;
    this.#clock = opts.clock ?? realClock;
    this.#random = opts.random ?? Math.random;
  }

  get cache(): CacheReader<T> {
    return this.#cache;
  }

  get path(): string {
    return this.#opts.path;
  }

  /** Adds a secondary index; call before start(). */
  addIndex(name: string, fn: (obj: T) => readonly string[]): void {
    this.#cache.addIndex(name, fn);
  }

  addHandlers(h: EventHandlers<T>): void {
    this.#handlers.push(h);
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  /** The resourceVersion the informer has seen up to (for tests and diagnostics). */
  lastResourceVersion(): string | undefined {
    return this.#resourceVersion;
  }

  waitForSync(): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  start(): void {
    if (this.#loop !== undefined) return;
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stop.abort(new Error('informer stopped'));
    if (this.#resyncTimer) this.#clock.clearTimeout(this.#resyncTimer);
    this.#sleepTimer?.wake();
    await this.#loop;
  }

  async #run(): Promise<void> {
    let relist: Relist | undefined = { cause: 'start' };
    let failures = 0;
    const log = this.#opts.log;
    while (!this.#stop.signal.aborted) {
      let request: 'list' | 'watch' = 'list';
      let from: string | undefined;
      try {
        if (relist !== undefined) {
          await this.#list(relist);
          relist = undefined;
          failures = 0;
          this.#markSynced();
        }
        request = 'watch';
        from = this.#resourceVersion;
        await this.#watch(() => {
          failures = 0;
        });
      } catch (e) {
        if (this.#stop.signal.aborted) break;
        this.#opts.hooks?.onError?.(e);
        if (isGone(e)) {
          // The version we resume from is gone: only a fresh LIST can catch up.
          relist = {
            cause: 'gone',
            status: e.code,
            origin: e.origin,
            reason: e.reason,
            request,
            resourceVersion: from,
          };
          log?.info({ path: this.#opts.path, ...relist }, 'resource version expired, relisting');
          continue;
        }
        failures++;
        const delay = jittered(
          exponentialBackoff(failures, this.#opts.backoffBaseMs ?? 200, this.#opts.backoffMaxMs ?? 10_000),
          0.2,
          this.#random,
        );
        log?.warn(
          { path: this.#opts.path, err: String(e), failures, retryInMs: Math.round(delay) },
          'informer error',
        );
        await this.#sleep(delay);
      }
    }
  }

  async #list(cause: Relist): Promise<void> {
    this.#opts.hooks?.onRelist?.(cause);
    const items: T[] = [];
    let cont: string | undefined;
    let rv: string | undefined;
    do {
      const q = this.#query({
        limit: String(this.#opts.pageSize ?? 500),
        ...(cont ? { continue: cont } : {}),
      });
      const page = await this.#transport.request<ListResult>(
        'GET',
        `${this.#opts.path}?${q}`,
        undefined,
        this.#stop.signal,
      );
      for (const it of page.items ?? []) items.push(this.#prepare(it as T));
      cont = page.metadata?.continue || undefined;
      rv = page.metadata?.resourceVersion;
    } while (cont !== undefined);
    this.#replace(items);
    this.#resourceVersion = rv;
    this.#opts.log?.debug({ path: this.#opts.path, rv, items: items.length }, 'listed');
  }

  /** Makes the cache equal to a fresh LIST, emitting the differences as events. */
  #replace(items: T[]): void {
    const seen = new Set<string>();
    for (const obj of items) {
      const key = keyOf(obj);
      seen.add(key);
      const old = this.#cache.get(key);
      if (old !== undefined && old.metadata?.resourceVersion === obj.metadata?.resourceVersion) continue;
      this.#cache.upsert(obj);
      if (old === undefined) this.#emit('add', obj, undefined, !this.#synced);
      else this.#emit('update', obj, old);
    }
    for (const key of this.#cache.keys()) {
      if (seen.has(key)) continue;
      const old = this.#cache.delete(key);
      if (old !== undefined) this.#emit('delete', old);
    }
  }

  async #watch(onProgress: () => void): Promise<void> {
    const timeout = this.#opts.watchTimeoutSeconds ?? 300;
    // Spread watch ends over [timeout/2, timeout] so many informers do not reconnect together.
    const seconds = Math.round(timeout / 2 + (timeout / 2) * this.#random());
    const q = this.#query({
      watch: '1',
      allowWatchBookmarks: 'true',
      timeoutSeconds: String(seconds),
      ...(this.#resourceVersion ? { resourceVersion: this.#resourceVersion } : {}),
    });
    this.#opts.log?.debug({ path: this.#opts.path, rv: this.#resourceVersion }, 'watching');
    await this.#transport.watch(
      `${this.#opts.path}?${q}`,
      (ev) => {
        onProgress();
        this.#apply(ev);
      },
      this.#stop.signal,
      (seconds + 30) * 1000,
    );
  }

  #apply(ev: WatchEvent): void {
    const rv = (ev.object as KubeObject).metadata?.resourceVersion;
    switch (ev.type) {
      case 'BOOKMARK':
        break;
      case 'ADDED':
      case 'MODIFIED': {
        const obj = this.#prepare(ev.object as T);
        const old = this.#cache.upsert(obj);
        if (old === undefined) this.#emit('add', obj);
        else this.#emit('update', obj, old);
        break;
      }
      case 'DELETED': {
        const old = this.#cache.delete(keyOf(ev.object as KubeObject));
        // The final state from the event is more current than the cached one.
        if (old !== undefined) this.#emit('delete', this.#prepare(ev.object as T));
        break;
      }
      case 'ERROR':
        // The transport turns ERROR events into rejections; nothing arrives here.
        break;
    }
    if (rv) this.#resourceVersion = rv;
  }

  #prepare(obj: T): T {
    let out = obj;
    if (this.#opts.stripManagedFields !== false && obj.metadata && 'managedFields' in obj.metadata) {
      const { managedFields: _mf, ...meta } = obj.metadata;
      out = { ...obj, metadata: meta } as T;
    }
    return this.#opts.transform === undefined ? out : this.#opts.transform(out);
  }

  #emit(kind: 'add' | 'update' | 'delete', obj: T, old?: T, initialList = false): void {
    for (const h of this.#handlers) {
      try {
        switch (kind) {
          case 'add':
            h.add?.(obj, initialList);
            break;
          case 'update':
            h.update?.(old ?? obj, obj);
            break;
          case 'delete':
            h.delete?.(obj);
            break;
        }
      } catch (e) {
        this.#opts.log?.error({ err: String(e), key: keyOf(obj) }, 'event handler threw');
      }
    }
  }

  #markSynced(): void {
    if (this.#synced) return;
    this.#synced = true;
    for (const w of this.#syncWaiters.splice(0)) w();
    this.#scheduleResync();
  }

  #scheduleResync(): void {
    const ms = this.#opts.resyncMs ?? 0;
    if (ms <= 0 || this.#stop.signal.aborted) return;
    this.#resyncTimer = this.#clock.setTimeout(() => {
      for (const obj of this.#cache.list()) this.#emit('update', obj, obj);
      this.#scheduleResync();
    }, ms);
  }

  #query(extra: Record<string, string>): string {
    const p = new URLSearchParams(extra);
    if (this.#opts.labelSelector) p.set('labelSelector', this.#opts.labelSelector);
    if (this.#opts.fieldSelector) p.set('fieldSelector', this.#opts.fieldSelector);
    return p.toString();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        if (this.#sleepTimer) this.#clock.clearTimeout(this.#sleepTimer.handle);
        this.#sleepTimer = undefined;
        resolve();
      };
      this.#sleepTimer = { handle: this.#clock.setTimeout(wake, ms), wake };
    });
  }
}
