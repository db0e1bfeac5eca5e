// Shapes shared by the render store and its callers. A render is src/render's {hooks, objects}.

import type { Render } from '../render/types.ts';

export type { Obj, Render } from '../render/types.ts';

/** What list() knows about one stored render without reading its content. */
export type StoredRenderMeta = {
  readonly renderRef: string;
  readonly revision: string | undefined;
  /** ISO time of the first successful write; undefined for a render that was never committed. */
  readonly storedAt: string | undefined;
  readonly chunkCount: number;
  /** Every chunk of the committed write is present (a reader could still find it corrupt). */
  readonly complete: boolean;
  /** Size of the gzip blob in bytes, summed over the chunks present. */
  readonly storedBytes: number;
};

/** The owner set on every Secret of a render so Kubernetes GC removes them with the Release. */
export type OwnerRef = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
};

export type PutOptions = {
  /** The source revision the render came from (annotation only; not part of the content). */
  readonly revision?: string;
  readonly owner?: OwnerRef;
  /**
   * The caller has never seen this render stored (not in the Release's history): its Secrets are created
   * straight away, one request a chunk, without first listing what is there. Any Secret found in place
   * (a write interrupted earlier, a name collision) turns the write into the listing one, so the result
   * is the same either way (docs/design.md#render-store).
   */
  readonly expectNew?: boolean;
};

export interface RenderStore {
  /** Stores `render` under `renderRef`; a no-op when a complete copy is stored already. */
  put(ns: string, release: string, renderRef: string, render: Render, opts?: PutOptions): Promise<void>;
  /** undefined when the render was never (completely) written; throws RenderStoreCorruptError. */
  get(ns: string, release: string, renderRef: string): Promise<Render | undefined>;
  /** The hooks of `get`'s render, verified alike, without parsing its objects (a deletion's read). */
  hooks(ns: string, release: string, renderRef: string): Promise<Render['hooks'] | undefined>;
  /** Newest first (by storedAt). */
  list(ns: string, release: string): Promise<StoredRenderMeta[]>;
  delete(ns: string, release: string, renderRef: string): Promise<void>;
  /** Deletes every stored render whose ref is not in `keep`; returns the deleted refs, sorted. */
  gc(ns: string, release: string, keep: ReadonlySet<string>): Promise<string[]>;
  deleteAll(ns: string, release: string): Promise<void>;
}
