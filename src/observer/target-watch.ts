// One watch of ./target-watches.ts (docs/design.md#watched-reads): an informer on one kind of one target
// cluster, selecting by the convoy.kumodo.io/release label and caching objects stripped (no
// managedFields, no last-applied annotation). Its state says whether its cache may be read: `synced`
// once listed, `starting` again while a failed watch has not delivered since, `fallback` when the API
// refuses to list the kind (RBAC, a kind that cannot be listed) — retried after FALLBACK_RETRY_MS.
import { LABEL_RELEASE } from '../api/constants.ts';
import { type KubeClient, resourcePath } from '../kube/client.ts';
import { isKubeError } from '../kube/errors.ts';
import { errorMessage } from '../lib/errors.ts';
import { Informer, type KubeObject, type Logger, Transport } from '../runtime/index.ts';
import type { Floor } from './cache-read.ts';

/** A LIST refused: reads from the API for this long, then the watch is tried again. */
export const FALLBACK_RETRY_MS = 5 * 60_000;
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** Answers that say the watch cannot work for this kind (not a passing failure). */
const GIVE_UP_CODES = new Set([401, 403, 404, 405]);

export interface WatchHooks {
  readonly log: Logger;
  /** Absent: every object (a Pod watch of one namespace). */
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Watch this namespace only. */
  readonly namespace?: string;
  /** What is cached of each object (default: stripped). */
  readonly transform?: (o: KubeObject) => KubeObject;
  /** A change of a cached object, after the first LIST. */
  readonly changed: (obj: KubeObject) => void;
  readonly running: (delta: 1 | -1) => void;
  readonly fellBack: (kind: string) => void;
  readonly now: () => number;
}

export class TargetWatch {
  readonly client: KubeClient;
  readonly apiVersion: string;
  readonly kind: string;
  /** Reader keys by label value, for wake-ups. */
  readonly byLabel = new Map<string, Set<string>>();
  /** The last fresh read of each object (namespace/name) for its entry's renderRef. */
  readonly floors = new Map<string, Floor>();
  state: 'starting' | 'synced' | 'fallback' = 'starting';
  readonly #h: WatchHooks;
  #informer: Informer<KubeObject> | undefined;
  #retryAt = 0;
  #stopped = false;
  #everSynced = false;
  /** Reads waiting for the first LIST (firstSync). */
  #firstSyncWaiters: (() => void)[] = [];

  constructor(client: KubeClient, apiVersion: string, kind: string, hooks: WatchHooks) {
    this.client = client;
    this.apiVersion = apiVersion;
    this.kind = kind;
    this.#h = hooks;
    this.#start();
  }

  /** The cached object, when the cache may be read. */
  cached(key: string): KubeObject | undefined {
    return this.state === 'synced' ? this.#informer?.cache.get(key) : undefined;
  }

  /** Every cached object, when the cache may be read. */
  list(): readonly KubeObject[] | undefined {
    return this.state === 'synced' ? this.#informer?.cache.list() : undefined;
  }

  /**
   * Resolves once the first LIST has filled the cache, the kind fell back to reads from the API, the watch
   * stopped, or `timeoutMs` passed — whichever comes first; at once for a watch that synced before.
   */
  firstSync(timeoutMs: number): Promise<void> {
    if (this.#everSynced || this.state !== 'starting' || this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#firstSyncWaiters.push(done);
    });
  }

  #firstSyncOver(): void {
    for (const done of this.#firstSyncWaiters.splice(0)) done();
  }

  /** Tries a watch given up for reads again once FALLBACK_RETRY_MS have passed. */
  retryIfDue(): void {
    if (this.state !== 'fallback' || this.#h.now() < this.#retryAt || this.#stopped) return;
    this.state = 'starting';
    this.#start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#firstSyncOver();
    await this.#drop();
  }

  #start(): void {
    const log = this.#h.log;
    this.client.resourceFor(this.apiVersion, this.kind).then(
      (info) => {
        if (this.#stopped || this.state !== 'starting') return;
        const inf = new Informer<KubeObject>(new Transport(this.client.transport), {
          path: resourcePath(info, this.#h.namespace === undefined ? {} : { namespace: this.#h.namespace }),
          ...(this.#h.labelSelector !== undefined ? { labelSelector: this.#h.labelSelector } : {}),
          ...(this.#h.fieldSelector !== undefined ? { fieldSelector: this.#h.fieldSelector } : {}),
          stripManagedFields: true,
          transform: this.#h.transform ?? ((o) => stripped(o, this.apiVersion, this.kind)),
          log,
          hooks: { onError: (err) => this.#failed(inf, err) },
        });
        const changed = (o: KubeObject) => {
          if (!inf.hasSynced() || this.#informer !== inf) return;
          // An event after a failed watch: the informer resumed (or relisted); trust its cache again.
          this.state = 'synced';
          this.#h.changed(o);
        };
        inf.addHandlers({ add: changed, update: (_old, o) => changed(o), delete: changed });
        this.#informer = inf;
        this.#h.running(1);
        inf.start();
        inf.waitForSync().then(() => {
          if (this.#informer !== inf) return;
          this.state = 'synced';
          this.#everSynced = true;
          this.#firstSyncOver();
        });
      },
      (err: unknown) => this.#fallback(err),
    );
  }

  #failed(inf: Informer<KubeObject>, err: unknown): void {
    if (this.#informer !== inf) return;
    if (!isKubeError(err) || !GIVE_UP_CODES.has(err.code)) {
      // The informer retries by itself; until it delivers again its cache may miss changes.
      if (inf.hasSynced()) this.state = 'starting';
      return;
    }
    this.#drop().catch((e: unknown) => this.#h.log.warn({ err: errorMessage(e) }, 'stopping a watch'));
    this.#fallback(err);
  }

  async #drop(): Promise<void> {
    const inf = this.#informer;
    if (inf === undefined) return;
    this.#informer = undefined;
    this.#h.running(-1);
    await inf.stop();
  }

  #fallback(err: unknown): void {
    this.state = 'fallback';
    this.#retryAt = this.#h.now() + FALLBACK_RETRY_MS;
    this.floors.clear();
    this.#h.fellBack(this.kind);
    this.#firstSyncOver();
    this.#h.log.warn({ err: errorMessage(err) }, 'cannot watch this kind; reading it from the API instead');
  }
}

/** The object as cached: without the last-applied annotation, with the apiVersion and kind LIST items lack. */
export function stripped(o: KubeObject, apiVersion: string, kind: string): KubeObject {
  const annotations = o.metadata?.annotations as Record<string, string> | undefined;
  if (annotations === undefined || !(LAST_APPLIED in annotations)) return { ...o, apiVersion, kind };
  const { [LAST_APPLIED]: _drop, ...rest } = annotations;
  return { ...o, apiVersion, kind, metadata: { ...o.metadata, annotations: rest } };
}

/** The label value of the Release that applied the object, if any. */
export function releaseLabelOf(o: KubeObject): string | undefined {
  const v = o.metadata?.labels?.[LABEL_RELEASE];
  return typeof v === 'string' ? v : undefined;
}
