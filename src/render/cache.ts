// Renders cached by everything they depend on: the files (by content), the spec.render, the namespace
// and the resolved inputs. A reconcile of an unchanged source runs no tool and parses no YAML (a Plain
// render of ~20 MiB takes 15-35 s to parse on a loaded machine, all of it on the event loop; see
// docs/design.md#render-cache). Bounded by the bytes the cached manifests weigh and by entries, least
// recently used first out, and at once when no Release holds it any more; failures are not cached (a
// fixed Secret must be seen); concurrent renders of one key share one run.
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical.ts';
import type { RendererOptions, RenderResult } from './renderer.ts';
import type { SourceAccess, SourceFile } from './types.ts';

/** A digest of the access a render was fetched with: its credentials never enter a key as they are. */
function accessIdentity(access: SourceAccess): string {
  return createHash('sha256')
    .update(JSON.stringify([access.host ?? '', access.credentials ?? {}]))
    .digest('hex');
}

/** The cache key of a render: sha256 over the tool, the files in path order and the options. */
export function renderKey(tool: string, files: readonly SourceFile[], options: RendererOptions): string {
  const h = createHash('sha256');
  h.update(`${tool}\0`);
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const f of sorted) {
    h.update(`${f.path}\0${f.data.length}\0`);
    h.update(f.data);
  }
  h.update(
    canonicalJson({
      render: options.render ?? null,
      substitute: options.substitute ?? null,
      namespace: options.namespace ?? null,
      name: options.name ?? null,
      inputs: options.inputs ?? null,
      // Only in the key when set: a message names it.
      ...(options.sourcePath === undefined ? {} : { sourcePath: options.sourcePath }),
      // A chart's dependencies fetched with one Release's credentials are not another's render.
      ...(options.dependencyAccess?.credentials === undefined
        ? {}
        : { access: accessIdentity(options.dependencyAccess) }),
    }),
  );
  return h.digest('hex');
}

/**
 * About the size of `value` as JSON, in bytes (UTF-16 code units of strings, 8 for a number): what a
 * cached render weighs. A walk that reads each string's length, so ~20 MiB of manifests weigh in
 * milliseconds; exact JSON would cost a serialisation per miss.
 */
export function approxJsonBytes(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
    case 'bigint':
      return 8;
    case 'boolean':
      return 5;
    case 'object': {
      if (value === null) return 4;
      if (Array.isArray(value)) {
        let n = 2;
        for (const v of value) n += approxJsonBytes(v) + 1;
        return n;
      }
      let n = 2;
      for (const [k, v] of Object.entries(value)) n += k.length + 4 + approxJsonBytes(v);
      return n;
    }
    default:
      return 0;
  }
}

/** What a result weighs in the cache: its manifests' objects (origins are small and shared). */
export function resultBytes(result: RenderResult): number {
  if (!result.ok) return 0;
  let n = 0;
  for (const m of result.value) n += approxJsonBytes(m.object);
  return n;
}

export type RenderCacheBounds = {
  /** Default 256. */
  readonly maxEntries?: number;
  /**
   * Default DEFAULT_MAX_BYTES. A result heavier than this alone is returned but not kept (it would
   * evict everything else and still not fit).
   */
  readonly maxBytes?: number;
  /** Called with the weight of each result that leaves the cache (to give a large one's memory back). */
  readonly onDropped?: (bytes: number) => void;
};

/** Room for a few renders of ~20 MiB (a 10,000-object Release's old and new render) beside small ones. */
export const DEFAULT_MAX_BYTES = 128 * 1024 * 1024;

/** Whose render a cached result is: the Release, "namespace/name", from the options' namespace and name. */
export function renderOwner(options: Pick<RendererOptions, 'namespace' | 'name'>): string | undefined {
  return options.namespace === undefined || options.name === undefined
    ? undefined
    : `${options.namespace}/${options.name}`;
}

export class RenderCache {
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  readonly #onDropped: ((bytes: number) => void) | undefined;
  // Map order is insertion order: re-inserting on a hit keeps the least recently used first.
  readonly #entries = new Map<string, { readonly result: RenderResult; readonly bytes: number }>();
  /**
   * The key each owner (a Release) rendered last, and how many owners hold each key: a result no owner
   * holds any more goes at once, not when the bound pushes it out — a Release deleted, or moved to a new
   * render, frees the tens of megabytes a large render weighs (docs/design.md#large-renders).
   */
  readonly #ownerKey = new Map<string, string>();
  readonly #holders = new Map<string, number>();
  #bytes = 0;
  hits = 0;
  misses = 0;

  constructor(bounds: RenderCacheBounds = {}) {
    this.#maxEntries = bounds.maxEntries ?? 256;
    this.#maxBytes = bounds.maxBytes ?? DEFAULT_MAX_BYTES;
    this.#onDropped = bounds.onDropped;
  }

  /** Renders in progress: a second caller of the same key waits for the first instead of running the tool. */
  readonly #inFlight = new Map<string, Promise<RenderResult>>();

  get size(): number {
    return this.#entries.size;
  }

  /** The weight of what is kept (resultBytes of each entry). */
  get bytes(): number {
    return this.#bytes;
  }

  /** How many results are kept only because an owner holds them (for tests). */
  get held(): number {
    return this.#holders.size;
  }

  async getOrRender(key: string, render: () => Promise<RenderResult>, owner?: string): Promise<RenderResult> {
    if (owner !== undefined) this.#hold(owner, key);
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.hits++;
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit.result;
    }
    const running = this.#inFlight.get(key);
    if (running !== undefined) {
      this.hits++;
      return running;
    }
    this.misses++;
    const p = render();
    this.#inFlight.set(key, p);
    try {
      const out = await p;
      if (out.ok) this.#keep(key, out);
      return out;
    } finally {
      this.#inFlight.delete(key);
    }
  }

  /** The owner (a deleted Release) holds nothing any more: what only it held goes. */
  forget(owner: string): void {
    const key = this.#ownerKey.get(owner);
    if (key === undefined) return;
    this.#ownerKey.delete(owner);
    this.#release(key);
  }

  #hold(owner: string, key: string): void {
    const previous = this.#ownerKey.get(owner);
    if (previous === key) return;
    this.#ownerKey.set(owner, key);
    this.#holders.set(key, (this.#holders.get(key) ?? 0) + 1);
    if (previous !== undefined) this.#release(previous);
  }

  #release(key: string): void {
    const n = (this.#holders.get(key) ?? 0) - 1;
    if (n > 0) {
      this.#holders.set(key, n);
      return;
    }
    this.#holders.delete(key);
    const e = this.#entries.get(key);
    if (e === undefined) return;
    this.#drop(key, e.bytes);
  }

  #drop(key: string, bytes: number): void {
    this.#entries.delete(key);
    this.#bytes -= bytes;
    this.#onDropped?.(bytes);
  }

  #keep(key: string, result: RenderResult): void {
    const bytes = resultBytes(result);
    if (bytes > this.#maxBytes) return;
    const old = this.#entries.get(key);
    if (old !== undefined) {
      this.#entries.delete(key);
      this.#bytes -= old.bytes;
    }
    this.#entries.set(key, { result, bytes });
    this.#bytes += bytes;
    for (const [k, e] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) break;
      this.#drop(k, e.bytes);
    }
  }
}
