// What the UI server knows of the cluster, kept current by watches with the user's credentials:
// Releases, their ReleaseInventories, Clusters, ReleaseSets and the shard Leases of convoy's processes,
// in informers (LIST then WATCH, resumed after any failure). Every change of a Release or of its inventory is told to the listeners by the Release's
// key, so the pages see it as soon as the API does. A watch that keeps failing (no permission, API
// server away) is reported with its reason, never shown as an empty list.
import { API_VERSION } from '../api/constants.ts';
import type { Cluster, Release, ReleaseInventory, ReleaseSet } from '../api/types.ts';
import type { KubeClient } from '../kube/client.ts';
import { isKubeError } from '../kube/errors.ts';
import { errorMessage } from '../lib/errors.ts';
import { nameOf, namespaceOf } from '../lib/names.ts';
import type { KubeObject } from '../runtime/filters.ts';
import { Informer } from '../runtime/informer.ts';
import type { Lease } from '../runtime/lease.ts';
import { leasePath } from '../runtime/lease-api.ts';
import { Transport } from '../runtime/transport.ts';
import { mayWatch } from './permissions.ts';

export type Scope = { readonly kind: 'all' } | { readonly kind: 'namespace'; readonly namespace: string };

type Kind = 'Release' | 'ReleaseInventory' | 'Cluster' | 'ReleaseSet' | 'Lease';
type K<T> = T & KubeObject;

export interface WatchProblem {
  readonly kind: Kind;
  readonly message: string;
  readonly since: string;
}

export type Listener = (change: { readonly kind: Kind; readonly key: string }) => void;

export class LiveState {
  readonly scope: Scope;
  readonly releases: Informer<K<Release>>;
  readonly inventories: Informer<K<ReleaseInventory>>;
  readonly clusters: Informer<K<Cluster>>;
  /** Undefined when the cluster's convoy has no ReleaseSet CRD (an older install); a problem says so. */
  readonly releaseSets: Informer<K<ReleaseSet>> | undefined;
  /** The shard Leases of convoy's processes: whether they run (liveness.ts). */
  readonly leases: Informer<K<Lease>>;
  readonly leaseNamespace: string;
  readonly #listeners = new Set<Listener>();
  readonly #problems = new Map<Kind, WatchProblem>();

  private constructor(
    client: KubeClient,
    scope: Scope,
    paths: Record<Kind, string | undefined>,
    leaseNamespace: string,
  ) {
    this.scope = scope;
    this.leaseNamespace = leaseNamespace;
    const transport = new Transport(client.transport);
    const make = <T extends K<Release | ReleaseInventory | Cluster | ReleaseSet | Lease>>(
      kind: Kind,
      path: string,
    ) => {
      const inf = new Informer<T>(transport, {
        path,
        stripManagedFields: true,
        backoffMaxMs: 5000,
        hooks: {
          onError: (err) => {
            const was = this.#problems.get(kind);
            this.#problems.set(kind, {
              kind,
              message: errorMessage(err),
              since: was?.since ?? new Date().toISOString(),
            });
            this.#emit({ kind, key: '' });
          },
        },
      });
      const changed = (obj: T) => {
        if (this.#problems.delete(kind)) this.#emit({ kind, key: '' });
        this.#emit({ kind, key: `${namespaceOf(obj)}/${nameOf(obj)}` });
      };
      inf.addHandlers({ add: changed, update: (_o, n) => changed(n), delete: changed });
      return inf;
    };
    const need = (kind: Kind) => {
      const path = paths[kind];
      if (path === undefined) throw new Error(`no path for ${kind}`);
      return path;
    };
    this.releases = make<K<Release>>('Release', need('Release'));
    this.inventories = make<K<ReleaseInventory>>('ReleaseInventory', need('ReleaseInventory'));
    this.clusters = make<K<Cluster>>('Cluster', need('Cluster'));
    this.leases = make<K<Lease>>('Lease', need('Lease'));
    const sets = paths.ReleaseSet;
    this.releaseSets = sets === undefined ? undefined : make<K<ReleaseSet>>('ReleaseSet', sets);
    if (sets === undefined) {
      this.#problems.set('ReleaseSet', {
        kind: 'ReleaseSet',
        message: 'the ReleaseSet CRD is not installed in this cluster (kubectl apply -f deploy/crds)',
        since: new Date().toISOString(),
      });
    }
  }

  /**
   * Watches every namespace when the user may list Releases cluster-wide, else only `namespace` (the
   * kubeconfig context's), as kubectl without -A would.
   */
  static async start(
    client: KubeClient,
    namespace: string,
    allNamespaces: boolean,
    leaseNamespace: string,
  ): Promise<LiveState> {
    let scope: Scope = { kind: 'namespace', namespace };
    if (allNamespaces) {
      const all = await client.pathOf({ apiVersion: API_VERSION, kind: 'Release' });
      try {
        await client.request({ method: 'GET', path: all, query: { limit: '1' } });
        scope = { kind: 'all' };
      } catch (err) {
        if (!(isKubeError(err) && err.code === 403)) throw err;
      }
    }
    const ns = scope.kind === 'all' ? undefined : scope.namespace;
    const path = (kind: Kind) => client.pathOf({ apiVersion: API_VERSION, kind, namespace: ns });
    let releaseSets: string | undefined;
    try {
      releaseSets = await path('ReleaseSet');
    } catch (err) {
      // An install from before ReleaseSets: the page says so (a problem), the rest works.
      if (!(isKubeError(err) && err.code === 404)) throw err;
    }
    const state = new LiveState(
      client,
      scope,
      {
        Release: await path('Release'),
        ReleaseInventory: await path('ReleaseInventory'),
        Cluster: await path('Cluster'),
        ReleaseSet: releaseSets,
        Lease: leasePath(leaseNamespace),
      },
      leaseNamespace,
    );
    state.releases.start();
    state.inventories.start();
    state.clusters.start();
    state.releaseSets?.start();
    // A user who may not read convoy's Leases gets a note, and the watch is not tried (no refused request).
    if (await mayWatch(client, 'coordination.k8s.io', 'leases', leaseNamespace)) {
      state.leases.start();
      // Liveness is unknown until the first list: tell the listeners when it is known.
      void state.leases.waitForSync().then(() => state.#emit({ kind: 'Lease', key: '' }));
    } else {
      state.#problems.set('Lease', {
        kind: 'Lease',
        message: `you may not list and watch leases in namespace ${leaseNamespace}`,
        since: new Date().toISOString(),
      });
    }
    return state;
  }

  /** Resolves once the first LIST of Releases and inventories has landed (or `ms` passed). */
  async synced(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((r) => {
      timer = setTimeout(() => r(false), ms);
    });
    const both = Promise.all([this.releases.waitForSync(), this.inventories.waitForSync()]).then(() => true);
    try {
      return await Promise.race([both, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  problems(): WatchProblem[] {
    return [...this.#problems.values()];
  }

  release(key: string): Release | undefined {
    return this.releases.cache.get(key);
  }

  inventory(key: string): ReleaseInventory | undefined {
    return this.inventories.cache.get(key);
  }

  on(l: Listener): () => void {
    this.#listeners.add(l);
    return () => this.#listeners.delete(l);
  }

  #emit(change: { kind: Kind; key: string }): void {
    for (const l of this.#listeners) l(change);
  }

  async stop(): Promise<void> {
    await Promise.all([
      this.releases.stop(),
      this.inventories.stop(),
      this.clusters.stop(),
      this.releaseSets?.stop(),
      this.leases.stop(),
    ]);
  }
}
