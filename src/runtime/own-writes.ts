// What a controller wrote, kept until its informer cache catches up (client-go's MutationCache). Without
// it a reconcile right after a write reads the old object from the cache and acts on it: it takes an
// edge a second time, or — worse — applies a status built from the old one, and Server-Side Apply drops
// every field this manager owned that the old one lacked (a stale read once erased status.lastHealthy).
// A write is dropped as soon as the informer delivers it (follow): kept until the next reconcile of its
// key, the last write of every Release stayed beside its cached copy, a second copy of each at rest.

import { keyOf } from './cache.ts';
import type { KubeObject } from './filters.ts';
import type { EventHandlers } from './informer.ts';

interface Versioned {
  readonly metadata: { readonly resourceVersion?: string };
}

interface Written<T> {
  /** The resourceVersion of the object the write replaced: while the cache still shows it, the write is newer. */
  readonly replacedVersion: string | undefined;
  readonly object: T;
}

/**
 * Orders two resourceVersions when both are etcd revisions (decimal integers), as client-go's mutation
 * cache does; undefined when either is opaque, and then only equality with the replaced version counts.
 */
function compareVersions(a: string | undefined, b: string | undefined): number | undefined {
  if (a === undefined || b === undefined || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return undefined;
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export class OwnWrites<T extends Versioned> {
  readonly #byKey = new Map<string, Written<T>>();

  /** Records `object`, written over `replaced` (what this pass read), and returns it. */
  remember(key: string, replaced: T | undefined, object: T): T {
    const prior = this.#byKey.get(key);
    // A second write in one pass replaces what the first wrote; the cache still shows the original.
    const replacedVersion =
      prior !== undefined && prior.object === replaced
        ? prior.replacedVersion
        : replaced?.metadata.resourceVersion;
    this.#byKey.set(key, { replacedVersion, object });
    return object;
  }

  /** The cached object, or this process's own newer write while the cache has not caught up with it. */
  fresh(key: string, cached: T | undefined): T | undefined {
    const w = this.#byKey.get(key);
    if (w === undefined) return cached;
    if (cached !== undefined) {
      const order = compareVersions(w.object.metadata.resourceVersion, cached.metadata.resourceVersion);
      // Someone else's change the cache saw before this write's own event does not make the write stale.
      if (order === 1 || (order === undefined && cached.metadata.resourceVersion === w.replacedVersion))
        return w.object;
    }
    this.#byKey.delete(key);
    return cached;
  }

  forget(key: string): void {
    this.#byKey.delete(key);
  }

  /**
   * Drops each write once the informer delivers an object at least as new, and a deleted object's: the
   * cache then says what the write said. Without it a write stayed until its key's next reconcile.
   */
  follow(informer: { addHandlers(h: EventHandlers<T & KubeObject>): void }): void {
    informer.addHandlers({
      add: (o) => this.fresh(keyOf(o), o),
      update: (_old, o) => this.fresh(keyOf(o), o),
      delete: (o) => this.forget(keyOf(o)),
    });
  }

  /** Writes still kept (for tests). */
  size(): number {
    return this.#byKey.size;
  }
}
