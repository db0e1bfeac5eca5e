// The sync requests (sync-requested-at, force-sync-at changed) this process saw that no source read has
// answered yet. A request is dated by this process's monotonic clock when its watch event arrived — after
// the push or `convoy sync` that wrote it — so a fetch that must answer it reads the source anew rather
// than joining a read started before (docs/design.md#requested-syncs). In memory only: a new process has
// no read in flight from before its start.

export interface SyncRequest {
  /** When the request was seen (performance.now()): FetchOptions.readAfter. */
  readonly readAfter: number;
  /** A fetch that started after readAfter returned: the request is answered (a newer one stays pending). */
  answered(): void;
}

export class PendingSyncRequests {
  readonly #seen = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** A request for the Release of `key` arrived now. */
  seen(key: string): void {
    this.#seen.set(key, this.#now());
  }

  /** The Release is gone. */
  forget(key: string): void {
    this.#seen.delete(key);
  }

  /** The request a reconcile of `key` starting now must answer, if any. */
  pending(key: string): SyncRequest | undefined {
    const readAfter = this.#seen.get(key);
    if (readAfter === undefined) return undefined;
    return {
      readAfter,
      answered: () => {
        if (this.#seen.get(key) === readAfter) this.#seen.delete(key);
      },
    };
  }

  get size(): number {
    return this.#seen.size;
  }
}
