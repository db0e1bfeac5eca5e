// The drift loop's renders in memory, by renderRef (content-addressed: never stale, only evicted), bounded
// by the objects they hold rather than by count: a fixed 32 renders meant that past 32 Releases every
// drift pass read its render from the store again (one Secret GET per Release per drift interval).
import type { Render } from '../../render/types.ts';

/** Default bound: about 2,000 Releases of 10 objects, some MiB of parsed objects. */
export const DEFAULT_MAX_OBJECTS = 20_000;

const weightOf = (r: Render) => Math.max(1, r.objects.length + r.hooks.length);

export class RenderCache {
  readonly #maxObjects: number;
  // Map order is insertion order: re-inserting on a hit keeps the least recently used first.
  readonly #byRef = new Map<string, Render>();
  #objects = 0;

  constructor(maxObjects = DEFAULT_MAX_OBJECTS) {
    this.#maxObjects = maxObjects;
  }

  get(ref: string): Render | undefined {
    const r = this.#byRef.get(ref);
    if (r !== undefined) {
      this.#byRef.delete(ref);
      this.#byRef.set(ref, r);
    }
    return r;
  }

  /** Keeps `render`, evicting the least recently used until the bound holds (the newest always stays). */
  set(ref: string, render: Render): void {
    const old = this.#byRef.get(ref);
    if (old !== undefined) {
      this.#byRef.delete(ref);
      this.#objects -= weightOf(old);
    }
    this.#byRef.set(ref, render);
    this.#objects += weightOf(render);
    for (const [k, v] of this.#byRef) {
      if (this.#objects <= this.#maxObjects || k === ref) break;
      this.#byRef.delete(k);
      this.#objects -= weightOf(v);
    }
  }

  get size(): number {
    return this.#byRef.size;
  }

  get objects(): number {
    return this.#objects;
  }
}
