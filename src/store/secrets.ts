// The render store backed by Secrets in the Release's namespace on the cluster convoy runs
// in (renders can hold Secrets, so they are stored as Secrets). Content-addressed: a
// render's Secrets are named and labelled by its renderRef, so writes are idempotent and
// reads are verified against the address. Layout and commit protocol: layout.ts. All API calls go
// through src/kube's KubeClient; gc, delete and list read only the Secrets' metadata.
import type { ObjectHeader } from '../api/types.ts';
import type { KubeClient, PartialObjectMetadata } from '../kube/client.ts';
import { isAlreadyExists, isConflict, isNotFound } from '../kube/errors.ts';
import { assertNever } from '../lib/assert-never.ts';
import { renderRefYielding } from '../render/canonical.ts';
import { RenderStoreCorruptError, RenderStoreError } from './errors.ts';
import {
  ANN_RENDER_REF,
  assemble,
  assembleHooks,
  type Chunk,
  type ChunkMeta,
  chunkSecret,
  DEFAULT_CHUNK_BYTES,
  type EncodedRender,
  encodeRender,
  isRenderRef,
  lacksSize,
  parseChunk,
  parseChunkMeta,
  releaseSelector,
  renderSelector,
  type SecretBody,
  summarize,
  TYPE_FIELD_SELECTOR,
  writeState,
} from './layout.ts';
import type { PutOptions, Render, RenderStore, StoredRenderMeta } from './types.ts';

export type SecretRenderStoreOptions = {
  /** Bytes of gzip per Secret; tests lower it to exercise chunking cheaply. */
  readonly chunkBytes?: number;
  readonly now?: () => Date;
};

const PAGE = 50;
/** create/replace rounds of one chunk write that lost a race with another writer. */
const WRITE_ATTEMPTS = 3;

/** What a chunk read needs: the whole Secret (get, put) or its metadata (list, delete, gc). */
type Read = 'data' | 'metadata';

const secrets = (namespace: string) => ({ apiVersion: 'v1', kind: 'Secret', namespace });
const secretRef = (namespace: string, name: string) => ({ ...secrets(namespace), name });

export class SecretRenderStore implements RenderStore {
  readonly #client: KubeClient;
  readonly #chunkBytes: number;
  readonly #now: () => Date;

  constructor(client: KubeClient, opts: SecretRenderStoreOptions = {}) {
    this.#client = client;
    this.#chunkBytes = opts.chunkBytes ?? DEFAULT_CHUNK_BYTES;
    this.#now = opts.now ?? (() => new Date());
  }

  async put(ns: string, release: string, renderRef: string, render: Render, opts: PutOptions = {}) {
    checkRef(renderRef);
    // Serialised an object at a time, for the check and again for the blob, never whole: of 50 MB
    // that was a second of the event loop and 100 MB at once (docs/design.md#render-store).
    const actual = await renderRefYielding(render);
    if (actual !== renderRef) {
      throw new RenderStoreError(`refusing to store a render hashing to ${actual} under ${renderRef}`);
    }
    const meta = {
      ns,
      release,
      renderRef,
      revision: opts.revision,
      storedAt: this.#now().toISOString(),
      owner: opts.owner,
    };
    let enc: EncodedRender | undefined;
    if (opts.expectNew === true) {
      enc = await encodeRender(render, this.#chunkBytes);
      if (await this.#createAll(meta, enc)) return;
    }
    const existing = await this.#chunks(ns, release, renderSelector(ns, release, renderRef), 'data');
    assertNoCollision(existing, renderRef);
    const mine = existing.filter((c) => c.renderRef === renderRef);
    // A committed, whole and verified write is the same content by construction.
    if (writeState(mine).kind === 'complete' && (await verifies(renderRef, mine))) return;

    enc ??= await encodeRender(render, this.#chunkBytes);
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

  /**
   * A new render's Secrets created by name, chunks 1…N-1 before chunk 0 (the commit, layout.ts): true
   * when every create succeeded; false at the first Secret already there, which the caller settles by
   * listing. The chunks created so far are the same bytes the listing write would create, so it keeps them.
   */
  async #createAll(meta: ChunkMeta, enc: EncodedRender): Promise<boolean> {
    const order = [...enc.chunks.keys()].filter((i) => i > 0).concat(0);
    for (const i of order) {
      try {
        await this.#client.create(asObject(chunkSecret(meta, enc, i)));
      } catch (err) {
        if (isAlreadyExists(err)) return false;
        throw err;
      }
    }
    return true;
  }

  async get(ns: string, release: string, renderRef: string): Promise<Render | undefined> {
    checkRef(renderRef);
    const chunks = await this.#chunks(ns, release, renderSelector(ns, release, renderRef), 'data');
    return assemble(renderRef, chunks);
  }

  async hooks(ns: string, release: string, renderRef: string): Promise<Render['hooks'] | undefined> {
    checkRef(renderRef);
    const chunks = await this.#chunks(ns, release, renderSelector(ns, release, renderRef), 'data');
    return assembleHooks(renderRef, chunks);
  }

  async list(ns: string, release: string): Promise<StoredRenderMeta[]> {
    const selector = releaseSelector(ns, release);
    const heads = await this.#chunks(ns, release, selector, 'metadata');
    // Chunks written before their size was annotated: their sizes are only in the data.
    return summarize(lacksSize(heads) ? await this.#chunks(ns, release, selector, 'data') : heads);
  }

  async delete(ns: string, release: string, renderRef: string): Promise<void> {
    checkRef(renderRef);
    const chunks = await this.#chunks(ns, release, renderSelector(ns, release, renderRef), 'metadata');
    // Chunk 0 first: the render reads as absent, never as corrupt, while the rest go.
    const ordered = chunks.filter((c) => c.renderRef === renderRef).sort((a, b) => a.index - b.index);
    for (const c of ordered) await this.#deleteSecret(ns, c.name);
  }

  async gc(ns: string, release: string, keep: ReadonlySet<string>): Promise<string[]> {
    const chunks = await this.#chunks(ns, release, releaseSelector(ns, release), 'metadata');
    const doomed = [...new Set(chunks.map((c) => c.renderRef))].filter((r) => !keep.has(r)).sort();
    for (const ref of doomed) {
      const ordered = chunks.filter((c) => c.renderRef === ref).sort((a, b) => a.index - b.index);
      for (const c of ordered) await this.#deleteSecret(ns, c.name);
    }
    return doomed;
  }

  async deleteAll(ns: string, release: string): Promise<void> {
    const chunks = await this.#chunks(ns, release, releaseSelector(ns, release), 'metadata');
    for (const c of [...chunks].sort((a, b) => a.index - b.index)) await this.#deleteSecret(ns, c.name);
  }

  async #chunks(ns: string, release: string, labelSelector: string, read: Read): Promise<Chunk[]> {
    const query = { labelSelector, fieldSelector: TYPE_FIELD_SELECTOR, limit: PAGE };
    switch (read) {
      case 'data': {
        const items = await this.#client.listAll<SecretBody>(secrets(ns), query);
        return items.flatMap((s) => parseChunk(ns, release, s) ?? []);
      }
      case 'metadata': {
        const items = await this.#client.listAll<PartialObjectMetadata>(secrets(ns), {
          ...query,
          metadataOnly: true,
        });
        return items.flatMap((s) => parseChunkMeta(ns, release, s.metadata) ?? []);
      }
      default:
        return assertNever(read);
    }
  }

  /**
   * Creates, or replaces `prior` (also when a concurrent writer created it in between). A write
   * that loses a race (the Secret appeared, changed or went away under it) is tried again.
   */
  async #write(ns: string, body: SecretBody, prior: Chunk | undefined): Promise<void> {
    const name = body.metadata?.name ?? '';
    const wantedRef = body.metadata?.annotations?.[ANN_RENDER_REF];
    let create = prior === undefined;
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= WRITE_ATTEMPTS;
      if (create) {
        try {
          await this.#client.create(asObject(body));
          return;
        } catch (err) {
          if (!isAlreadyExists(err) || last) throw err;
        }
      }
      const current = await this.#client.get<SecretBody>(secretRef(ns, name));
      if (current === undefined) {
        if (last) throw new RenderStoreError(`Secret ${ns}/${name} kept disappearing while it was written`);
        create = true;
        continue;
      }
      const currentRef = current.metadata?.annotations?.[ANN_RENDER_REF];
      if (currentRef !== undefined && currentRef !== wantedRef) {
        throw new RenderStoreError(`Secret ${ns}/${name} holds ${currentRef}, not ${wantedRef}`);
      }
      try {
        await this.#client.replace(
          asObject({
            ...body,
            metadata: { ...body.metadata, resourceVersion: current.metadata?.resourceVersion },
          }),
        );
        return;
      } catch (err) {
        if (!(isConflict(err) || isNotFound(err)) || last) throw err;
        create = isNotFound(err);
      }
    }
  }

  async #deleteSecret(ns: string, name: string): Promise<void> {
    // false (already gone) is what this delete wants too.
    await this.#client.delete(secretRef(ns, name));
  }
}

async function verifies(renderRef: string, chunks: readonly Chunk[]): Promise<boolean> {
  try {
    return (await assemble(renderRef, chunks)) !== undefined;
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

/** chunkSecret always sets apiVersion, kind and metadata; the type only says they may be absent. */
function asObject(body: SecretBody): ObjectHeader {
  return {
    ...body,
    apiVersion: body.apiVersion ?? 'v1',
    kind: body.kind ?? 'Secret',
    metadata: body.metadata ?? {},
  };
}
