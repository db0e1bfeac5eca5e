// The observer's one status write for both loops: the Healthy condition with healthSummary (health loop)
// and the Drifted condition with driftSummary (drift loop) go out together, Server-Side Apply under
// convoy-observer. Each write of a Release's status costs the API server about as much whatever it
// changes (npm run bench:requests), and one inventory record wakes both loops at once, so their verdicts
// on it share a write: a part posted while the other loop has a pass of that Release queued or running
// waits for that pass's part, or its end, at most maxWaitMs (docs/design.md#observer-status).
import { FIELD_MANAGERS } from '../api/constants.ts';
import type { Release } from '../api/types.ts';
import type { KubeClient } from '../kube/client.ts';
import { writeStatus } from '../kube/status.ts';
import { splitKey, type WorkQueue } from '../runtime/index.ts';
import {
  mergeParts,
  mustWait,
  type PartBody,
  type Parts,
  type StatusPart,
  storedParts,
} from './status-parts.ts';

/** What a loop tells the writer: whether it has a pass of a key queued or running, and what came of a write. */
export interface StatusLoop {
  /** A pass of `key` is queued or running: a part posted by the other loop waits for it. */
  readonly due: (key: string) => boolean;
  /** A pass of `key` is queued (again, while one runs): the running pass's end does not settle the wait. */
  readonly queued: (key: string) => boolean;
  /** A write landed; `carried`: it carried a part this loop posted (else only the other loop's). */
  readonly written: (key: string, release: Release, carried: boolean) => void;
  /** A write this loop's part was deferred into failed: pass the key again. */
  readonly failed: (key: string, error: unknown) => void;
}

/**
 * A loop as the writer sees it through its work queue: due while the key is queued or processed, and a
 * deferred part whose write failed is passed again with the queue's backoff.
 */
export function queueStatusLoop(
  queue: Pick<WorkQueue, 'isQueued' | 'isProcessing' | 'addRateLimited'>,
  written: StatusLoop['written'],
): StatusLoop {
  return {
    due: (key) => queue.isQueued(key) || queue.isProcessing(key),
    queued: (key) => queue.isQueued(key),
    written,
    failed: (key) => queue.addRateLimited(key),
  };
}

interface KeyState {
  uid: string | undefined;
  parts: Parts;
  /** Parts posted since the last write; empty: nothing to write. */
  readonly posted: Set<StatusPart>;
  /** Loops whose pass ended since this write's first part, with or without a part of their own. */
  readonly ended: Set<StatusPart>;
  writing: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Callers awaiting the next write: those that posted while no wait was needed. */
  waiters: Array<{
    readonly part: StatusPart;
    readonly resolve: (r: Release | undefined) => void;
    readonly reject: (e: unknown) => void;
  }>;
}

export interface PostResult {
  /** The stored Release after a write that carried the part; undefined while it waits for the other loop. */
  readonly written: Release | undefined;
}

export class ObserverStatusWriter {
  readonly #client: KubeClient;
  readonly #maxWaitMs: number;
  readonly #loops = new Map<StatusPart, StatusLoop>();
  readonly #keys = new Map<string, KeyState>();

  constructor(client: KubeClient, opts: { readonly maxWaitMs?: number } = {}) {
    this.#client = client;
    this.#maxWaitMs = opts.maxWaitMs ?? 500;
  }

  register(part: StatusPart, loop: StatusLoop): void {
    this.#loops.set(part, loop);
  }

  /**
   * Posts a loop's part of `release`'s status (as its cache has it). Resolves with the stored Release once
   * a write carried it, or with written undefined when the write waits for the other loop's pass: that
   * write's outcome reaches the loop through its `written` and `failed`.
   */
  post<P extends StatusPart>(key: string, release: Release, part: P, body: PartBody<P>): Promise<PostResult> {
    const s = this.#state(key, release);
    // A pass that ended before this write's first part cannot carry a part into it.
    if (s.posted.size === 0) s.ended.clear();
    (s.parts as Record<StatusPart, unknown>)[part] = body;
    s.posted.add(part);
    if (this.#waitFor(key, s) && !s.writing) {
      s.timer ??= this.#waitTimer(key);
      return Promise.resolve({ written: undefined });
    }
    return new Promise<Release | undefined>((resolve, reject) => {
      s.waiters.push({ part, resolve, reject });
      if (!s.writing) this.#flush(key);
    }).then((written) => ({ written }));
  }

  /** A loop's pass of `key` ended: a part waiting for it goes out now. */
  passEnded(part: StatusPart, key: string): void {
    const s = this.#keys.get(key);
    if (s === undefined || s.posted.size === 0) return;
    // Woken again while it ran (the controller's status after its record): the next pass may carry a part.
    if (this.#loops.get(part)?.queued(key) === true) return;
    s.ended.add(part);
    if (!s.writing && !this.#waitFor(key, s)) this.#flush(key);
  }

  /** The Release is gone or being deleted: its parts are dropped. */
  forget(key: string): void {
    const s = this.#keys.get(key);
    if (s?.timer !== undefined) clearTimeout(s.timer);
    this.#keys.delete(key);
  }

  #state(key: string, release: Release): KeyState {
    const known = this.#keys.get(key);
    if (known !== undefined && known.uid === release.metadata.uid) return known;
    if (known?.timer !== undefined) clearTimeout(known.timer);
    // First sight (or a new Release of that name): the parts as stored, so a write of one part sends the
    // other unchanged — it is this writer's field too, and Server-Side Apply drops an owned field left out.
    const s: KeyState = {
      uid: release.metadata.uid,
      parts: storedParts(release.status),
      posted: new Set(),
      ended: new Set(),
      writing: false,
      timer: undefined,
      waiters: [],
    };
    this.#keys.set(key, s);
    return s;
  }

  /** True while another loop has a pass of `key` due whose part has not come since the last write. */
  #waitFor(key: string, s: KeyState): boolean {
    return mustWait(
      [...this.#loops].map(([part, loop]) => ({
        due: loop.due(key),
        posted: s.posted.has(part),
        ended: s.ended.has(part),
      })),
    );
  }

  /** The bound of a wait; it does not hold the process up at shutdown (the next process writes the part). */
  #waitTimer(key: string): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => this.#flush(key), this.#maxWaitMs);
    timer.unref();
    return timer;
  }

  #flush(key: string): void {
    const s = this.#keys.get(key);
    if (s === undefined || s.writing || s.posted.size === 0) return;
    if (s.timer !== undefined) clearTimeout(s.timer);
    s.timer = undefined;
    const posted = [...s.posted];
    const waiters = s.waiters.splice(0);
    s.posted.clear();
    s.ended.clear();
    s.writing = true;
    const target = { kind: 'Release', ...splitKey(key) };
    writeStatus<Release>(this.#client, target, mergeParts(s.parts), { fieldManager: FIELD_MANAGERS.observer })
      .then(
        (r) => {
          const written = r.written ? r.object : undefined;
          if (written !== undefined)
            for (const [part, loop] of this.#loops) loop.written(key, written, posted.includes(part));
          for (const w of waiters) w.resolve(written);
          return written;
        },
        (err: unknown) => {
          for (const w of waiters) w.reject(err);
          // A part whose pass did not wait for this write is passed again by its loop.
          for (const p of posted)
            if (!waiters.some((w) => w.part === p)) this.#loops.get(p)?.failed(key, err);
          return undefined;
        },
      )
      .finally(() => {
        s.writing = false;
        if (this.#keys.get(key) !== s || s.posted.size === 0) return;
        if (this.#waitFor(key, s)) s.timer ??= this.#waitTimer(key);
        else this.#flush(key);
      });
  }
}
