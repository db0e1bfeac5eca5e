// Tool renders cached by everything they depend on: the files (by content), the spec.render, the
// namespace and the resolved inputs. A reconcile of an unchanged source runs no tool. Bounded by
// entries, least recently used first out; failures are not cached (a fixed Secret must be seen);
// concurrent renders of one key share one tool run.
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical.ts';
import type { RendererOptions, RenderResult } from './renderer.ts';
import type { SourceFile } from './types.ts';

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
    }),
  );
  return h.digest('hex');
}

export class RenderCache {
  readonly #max: number;
  readonly #entries = new Map<string, RenderResult>();
  hits = 0;
  misses = 0;

  constructor(maxEntries = 256) {
    this.#max = maxEntries;
  }

  /** Renders in progress: a second caller of the same key waits for the first instead of running the tool. */
  readonly #inFlight = new Map<string, Promise<RenderResult>>();

  async getOrRender(key: string, render: () => Promise<RenderResult>): Promise<RenderResult> {
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.hits++;
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
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
      if (out.ok) {
        this.#entries.set(key, out);
        while (this.#entries.size > this.#max) {
          const oldest = this.#entries.keys().next().value;
          if (oldest === undefined) break;
          this.#entries.delete(oldest);
        }
      }
      return out;
    } finally {
      this.#inFlight.delete(key);
    }
  }
}
