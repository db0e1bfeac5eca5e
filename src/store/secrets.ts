// The render store backed by Secrets in the Release's namespace on the cluster convoy runs
// in (renders can hold Secrets, so they are stored as Secrets). Content-addressed: a
// render's Secrets are named and labelled by its renderRef, so writes are idempotent and
// reads are verified against the address. Layout and commit protocol: layout.ts.
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { renderRef as renderRefOf } from '../render/canonical.ts';
import { RenderStoreCorruptError, RenderStoreError } from './errors.ts';
import {
  assemble,
  type Chunk,
  chunkSecret,
  DEFAULT_CHUNK_BYTES,
  encodeRender,
  isRenderRef,
  parseChunk,
  releaseSelector,
  renderSelector,
  summarize,
  writeState,
} from './layout.ts';
import type { PutOptions, Render, RenderStore, StoredRenderMeta } from './types.ts';

export type SecretRenderStoreOptions = {
  /** Bytes of gzip per Secret; tests lower it to exercise chunking cheaply. */
  readonly chunkBytes?: number;
  readonly now?: () => Date;
};

const PAGE = 50;

export class SecretRenderStore implements RenderStore {
  readonly #core: CoreV1Api;
  readonly #chunkBytes: number;
  readonly #now: () => Date;

  constructor(core: CoreV1Api, opts: SecretRenderStoreOptions = {}) {
    this.#core = core;
    this.#chunkBytes = opts.chunkBytes ?? DEFAULT_CHUNK_BYTES;
    this.#now = opts.now ?? (() => new Date());
  }

  async put(ns: string, release: string, renderRef: string, render: Render, opts: PutOptions = {}) {
    checkRef(renderRef);
    const actual = renderRefOf(render);
    if (actual !== renderRef) {
      throw new RenderStoreError(`refusing to store a render hashing to ${actual} under ${renderRef}`);
    }
    const existing = await this.#chunks(ns, release, renderSelector(ns, release, renderRef));
    assertNoCollision(existing, renderRef);
    const mine = existing.filter((c) => c.renderRef === renderRef);
    // A committed, whole and verified write is the same content by construction.
    if (writeState(mine).kind === 'complete' && verifies(renderRef, mine)) return;

    const enc = encodeRender(render, this.#chunkBytes);
    const meta = {
      ns,
      release,
      renderRef,
      revision: opts.revision,
      storedAt: this.#now().toISOString(),
      owner: opts.owner,
    };
    const byIndex = new Map(mine.map((c) => [c.index, c]));
    // A chunk is kept only when it is byte-for-byte the one this write would create.
    const reusable = (c: Chunk | undefined): boolean =>
      c !== undefined &&
      c.count === enc.chunks.length &&
      c.blobSha256 === enc.blobSha256 &&
      c.data?.equals(enc.chunks[c.index] ?? Buffer.alloc(0)) === true;

    // Un-commit a stale chunk 0 first so no reader pairs it with chunks of this write.
    const head = byIndex.get(0);
    if (head !== undefined && !reusable(head)) {
      await this.#deleteSecret(ns, head.name);
      byIndex.delete(0);
    }
    for (let i = 1; i < enc.chunks.length; i++) {
      const c = byIndex.get(i);
      if (!reusable(c)) await this.#write(ns, chunkSecret(meta, enc, i), c);
    }
    for (const c of mine) {
      if (c.index >= enc.chunks.length || c.index < 0) await this.#deleteSecret(ns, c.name);
    }
    if (!reusable(byIndex.get(0))) await this.#write(ns, chunkSecret(meta, enc, 0), undefined);
  }

  async get(ns: string, release: string, renderRef: string): Promise<Render | undefined> {
    checkRef(renderRef);
    const chunks = await this.#chunks(ns, release, renderSelector(ns, release, renderRef));
    return assemble(renderRef, chunks);
  }

  async list(ns: string, release: string): Promise<StoredRenderMeta[]> {
    return summarize(await this.#chunks(ns, release, releaseSelector(ns, release)));
  }

  async delete(ns: string, release: string, renderRef: string): Promise<void> {
    checkRef(renderRef);
    const chunks = await this.#chunks(ns, release, renderSelector(ns, release, renderRef));
    // Chunk 0 first: the render reads as absent, never as corrupt, while the rest go.
    const ordered = chunks.filter((c) => c.renderRef === renderRef).sort((a, b) => a.index - b.index);
    for (const c of ordered) await this.#deleteSecret(ns, c.name);
  }

  async gc(ns: string, release: string, keep: ReadonlySet<string>): Promise<string[]> {
    const chunks = await this.#chunks(ns, release, releaseSelector(ns, release));
    const doomed = [...new Set(chunks.map((c) => c.renderRef))].filter((r) => !keep.has(r)).sort();
    for (const ref of doomed) {
      const ordered = chunks.filter((c) => c.renderRef === ref).sort((a, b) => a.index - b.index);
      for (const c of ordered) await this.#deleteSecret(ns, c.name);
    }
    return doomed;
  }

  async deleteAll(ns: string, release: string): Promise<void> {
    const chunks = await this.#chunks(ns, release, releaseSelector(ns, release));
    for (const c of [...chunks].sort((a, b) => a.index - b.index)) await this.#deleteSecret(ns, c.name);
  }

  async #chunks(ns: string, release: string, labelSelector: string): Promise<Chunk[]> {
    const out: Chunk[] = [];
    let cont: string | undefined;
    do {
      const page = await this.#core.listNamespacedSecret({
        namespace: ns,
        labelSelector,
        limit: PAGE,
        ...(cont === undefined ? {} : { _continue: cont }),
      });
      for (const s of page.items) {
        const c = parseChunk(ns, release, s);
        if (c !== undefined) out.push(c);
      }
      cont = page.metadata?._continue || undefined;
    } while (cont !== undefined);
    return out;
  }

  /** Creates, or replaces `prior` (also when a concurrent writer created it in between). */
  async #write(ns: string, body: V1Secret, prior: Chunk | undefined): Promise<void> {
    const name = body.metadata?.name ?? '';
    if (prior === undefined) {
      try {
        await this.#core.createNamespacedSecret({ namespace: ns, body });
        return;
      } catch (err) {
        if (statusOf(err) !== 409) throw err;
      }
    }
    const current = await this.#core.readNamespacedSecret({ name, namespace: ns });
    const currentRef = current.metadata?.annotations?.['convoy.kumodo.io/render-ref'];
    const wantedRef = body.metadata?.annotations?.['convoy.kumodo.io/render-ref'];
    if (currentRef !== undefined && currentRef !== wantedRef) {
      throw new RenderStoreError(`Secret ${ns}/${name} holds ${currentRef}, not ${wantedRef}`);
    }
    await this.#core.replaceNamespacedSecret({
      name,
      namespace: ns,
      body: { ...body, metadata: { ...body.metadata, resourceVersion: current.metadata?.resourceVersion } },
    });
  }

  async #deleteSecret(ns: string, name: string): Promise<void> {
    try {
      await this.#core.deleteNamespacedSecret({ name, namespace: ns });
    } catch (err) {
      if (statusOf(err) !== 404) throw err;
    }
  }
}

function verifies(renderRef: string, chunks: readonly Chunk[]): boolean {
  try {
    return assemble(renderRef, chunks) !== undefined;
  } catch (err) {
    if (err instanceof RenderStoreCorruptError) return false;
    throw err;
  }
}

function checkRef(renderRef: string): void {
  if (!isRenderRef(renderRef)) throw new RenderStoreError(`not a renderRef: ${JSON.stringify(renderRef)}`);
}

/** Two refs sharing the 16-hex short name would overwrite each other: refuse instead. */
function assertNoCollision(chunks: readonly Chunk[], renderRef: string): void {
  const other = chunks.find((c) => c.renderRef !== renderRef);
  if (other !== undefined) {
    throw new RenderStoreError(`renders ${other.renderRef} and ${renderRef} collide on Secret names`);
  }
}

function statusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}
