// What an observer loop wrote, kept until its informer cache catches up. Without it a pass right after a
// write reads the old values from the cache and takes the same edge (a /sync, a heal) a second time.

interface Versioned {
  readonly metadata: { readonly resourceVersion?: string };
}

interface Written<T> {
  /** The resourceVersion of the object the write replaced: while the cache still shows it, the write is newer. */
  readonly replacedVersion: string | undefined;
  readonly object: T;
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
    if (cached !== undefined && cached.metadata.resourceVersion === w.replacedVersion) return w.object;
    this.#byKey.delete(key);
    return cached;
  }

  forget(key: string): void {
    this.#byKey.delete(key);
  }
}
