// How a render is laid out in Secrets: names, labels, annotations, chunking, and the
// reverse — reassembly with every check a reader needs. Pure; secrets.ts does the I/O.
//
// Commit protocol: chunk 0 is written last and is the commit marker. A render whose chunk 0
// is absent is "not stored" (a put that died half-way); one whose chunk 0 is present but
// whose other chunks are missing or from another write is corrupt.
//
// (De)compression runs on libuv's thread pool, never on the event loop: gzip of a ~20 MiB render took
// 4-6 s synchronously on a loaded machine, long enough for the controller's shard Lease to lapse
// (docs/design.md#render-store).
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { createGzip, gunzip as gunzipCb, gzip as gzipCb, type ZlibOptions } from 'node:zlib';
import { GROUP, LABEL_RELEASE } from '../api/constants.ts';
import { assertNever } from '../lib/assert-never.ts';
import { errorMessage } from '../lib/errors.ts';
import { forEachCanonicalPart, renderRef as renderRefOf } from '../render/canonical.ts';
import { RenderStoreCorruptError } from './errors.ts';
import type { OwnerRef, Render, StoredRenderMeta } from './types.ts';

export const SECRET_TYPE = `${GROUP}/render`;
/** The label of every object a Release applied marks its stored renders too. */
export { LABEL_RELEASE };
export const LABEL_RENDER_REF = `${GROUP}/render-ref`;
/** The same keys as annotations hold the values whole: the label values may be cut to fit. */
export const ANN_RELEASE = LABEL_RELEASE;
export const ANN_RENDER_REF = LABEL_RENDER_REF;
export const ANN_CHUNK_INDEX = `${GROUP}/chunk-index`;
export const ANN_CHUNK_COUNT = `${GROUP}/chunk-count`;
/** sha256 of the whole gzip blob: tells chunks of one write from those of another. */
export const ANN_BLOB_SHA256 = `${GROUP}/blob-sha256`;
export const ANN_REVISION = `${GROUP}/revision`;
export const ANN_STORED_AT = `${GROUP}/stored-at`;
/** Size of this chunk's data: list() reads only metadata and still reports storedBytes. */
export const ANN_CHUNK_BYTES = `${GROUP}/chunk-bytes`;
export const DATA_KEY = 'chunk';

/** Secrets hold at most 1 MiB of data; leave room for the API server's own accounting. */
export const DEFAULT_CHUNK_BYTES = 900 * 1024;

const MAX_NAME = 253;
const MAX_LABEL_VALUE = 63;
const SHORT_REF = 16;

/** The Secret shape this module reads and writes (a structural subset of V1Secret). */
export type SecretBody = {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: { [k: string]: string };
    annotations?: { [k: string]: string };
    ownerReferences?: OwnerRef[];
    resourceVersion?: string;
  };
  type?: string;
  data?: { [k: string]: string };
};

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

const REF = /^sha256:[0-9a-f]{64}$/;

export function isRenderRef(s: string): boolean {
  return REF.test(s);
}

function hexOf(renderRef: string): string {
  return renderRef.startsWith('sha256:') ? renderRef.slice('sha256:'.length) : renderRef;
}

/**
 * `<ns>.<name>` when it fits a label value; longer ones are cut and suffixed with a hash of
 * the whole so they stay unique (the full value is kept in an annotation and checked on read).
 */
export function releaseLabelValue(ns: string, release: string): string {
  const full = `${ns}.${release}`;
  if (full.length <= MAX_LABEL_VALUE) return full;
  const suffix = sha256Hex(full).slice(0, 10);
  const head = full.slice(0, MAX_LABEL_VALUE - suffix.length - 1).replace(/[^A-Za-z0-9]+$/, '');
  return `${head}-${suffix}`;
}

export function refLabelValue(renderRef: string): string {
  return hexOf(renderRef).slice(0, MAX_LABEL_VALUE);
}

/** `convoy-render-<release>-<short ref>-<i>`, shortened with a hash when the release name is long. */
export function chunkName(release: string, renderRef: string, index: number): string {
  const tail = `-${hexOf(renderRef).slice(0, SHORT_REF)}-${index}`;
  const prefix = 'convoy-render-';
  const room = MAX_NAME - prefix.length - tail.length;
  let rel = release;
  if (rel.length > room) {
    const suffix = sha256Hex(release).slice(0, 8);
    rel = `${release.slice(0, room - suffix.length - 1).replace(/[^a-z0-9]+$/, '')}-${suffix}`;
  }
  return `${prefix}${rel}${tail}`;
}

export function releaseSelector(ns: string, release: string): string {
  return `${LABEL_RELEASE}=${releaseLabelValue(ns, release)}`;
}

/** Server-side filter to render Secrets (metadata-only lists carry no type to check). */
export const TYPE_FIELD_SELECTOR = `type=${SECRET_TYPE}`;

export function renderSelector(ns: string, release: string, renderRef: string): string {
  return `${releaseSelector(ns, release)},${LABEL_RENDER_REF}=${refLabelValue(renderRef)}`;
}

export type EncodedRender = {
  readonly blobSha256: string;
  readonly chunks: readonly Buffer[];
};

// Promisified at the first call, not at import: reading zlib's members loads zlib, which a command
// that reads no render (`convoy get`) would pay for at start-up.
const gzip = (buf: Buffer, opts: ZlibOptions) => promisify(gzipCb)(buf, opts);
const gunzip = (buf: Buffer) => promisify(gunzipCb)(buf);

/**
 * zlib's default level: on a compressible render (10,000 Deployments, 11 MiB of JSON) level 9 took 1.5x
 * the CPU of level 6 for a blob 1.5% smaller; random data (the large e2e's padding) does not compress
 * at any level. docs/design.md#render-store has the figures.
 */
export const GZIP_LEVEL = 6;

/**
 * The stored form of `render`; `json` is its canonicalRenderJson when the caller has it already.
 * Without it the text is never built whole: it streams into gzip an object at a time (a 50 MB render's
 * text, and its UTF-8 copy, were 100 MB more at once and a second of the event loop).
 */
export async function encodeRender(
  render: Render,
  chunkBytes = DEFAULT_CHUNK_BYTES,
  json?: string,
): Promise<EncodedRender> {
  const blob =
    json === undefined
      ? await gzipParts(render)
      : await gzip(Buffer.from(json, 'utf8'), { level: GZIP_LEVEL });
  const chunks: Buffer[] = [];
  for (let off = 0; off < blob.length; off += chunkBytes) chunks.push(blob.subarray(off, off + chunkBytes));
  if (chunks.length === 0) chunks.push(Buffer.alloc(0));
  return { blobSha256: sha256Hex(blob), chunks };
}

/** gzip of canonicalRenderParts, written as they are serialised, with the stream's backpressure. */
async function gzipParts(render: Render): Promise<Buffer> {
  const gz = createGzip({ level: GZIP_LEVEL });
  const out: Buffer[] = [];
  gz.on('data', (b: Buffer) => out.push(b));
  const ended = once(gz, 'end');
  await forEachCanonicalPart(render, async (part) => {
    if (!gz.write(part)) await once(gz, 'drain');
  });
  gz.end();
  await ended;
  return Buffer.concat(out);
}

export type ChunkMeta = {
  readonly ns: string;
  readonly release: string;
  readonly renderRef: string;
  readonly revision: string | undefined;
  readonly storedAt: string;
  readonly owner: OwnerRef | undefined;
};

export function chunkSecret(meta: ChunkMeta, enc: EncodedRender, index: number): SecretBody {
  const chunk = enc.chunks[index];
  if (chunk === undefined) throw new RangeError(`chunk ${index} of ${enc.chunks.length}`);
  const annotations: Record<string, string> = {
    [ANN_RELEASE]: `${meta.ns}.${meta.release}`,
    [ANN_RENDER_REF]: meta.renderRef,
    [ANN_CHUNK_INDEX]: String(index),
    [ANN_CHUNK_COUNT]: String(enc.chunks.length),
    [ANN_BLOB_SHA256]: enc.blobSha256,
    [ANN_STORED_AT]: meta.storedAt,
    [ANN_CHUNK_BYTES]: String(chunk.length),
  };
  if (meta.revision !== undefined) annotations[ANN_REVISION] = meta.revision;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: chunkName(meta.release, meta.renderRef, index),
      namespace: meta.ns,
      labels: {
        [LABEL_RELEASE]: releaseLabelValue(meta.ns, meta.release),
        [LABEL_RENDER_REF]: refLabelValue(meta.renderRef),
        'app.kubernetes.io/managed-by': 'convoy',
      },
      annotations,
      ...(meta.owner === undefined ? {} : { ownerReferences: [{ ...meta.owner }] }),
    },
    type: SECRET_TYPE,
    data: { [DATA_KEY]: chunk.toString('base64') },
  };
}

/** One stored chunk as read back; undefined for a Secret that is not a chunk of this release. */
export type Chunk = {
  readonly name: string;
  readonly resourceVersion: string | undefined;
  readonly renderRef: string;
  readonly index: number;
  readonly count: number;
  readonly blobSha256: string;
  readonly revision: string | undefined;
  readonly storedAt: string | undefined;
  /** The chunk's bytes; undefined when it has none, or when only its metadata was read. */
  readonly data: Buffer | undefined;
  /** Only for a chunk read without its data: the size its annotation gives (undefined: not annotated). */
  readonly bytes?: number | undefined;
};

const SMALL_INT = /^(0|[1-9][0-9]{0,5})$/;
const SIZE_INT = /^(0|[1-9][0-9]{0,8})$/;

function nonNegInt(s: string | undefined, pattern = SMALL_INT): number | undefined {
  if (s === undefined || !pattern.test(s)) return undefined;
  return Number(s);
}

/** A chunk from its metadata alone (a metadata-only list): no data, its size from the annotation. */
export function parseChunkMeta(ns: string, release: string, meta: SecretBody['metadata']): Chunk | undefined {
  const ann = meta?.annotations ?? {};
  if (ann[ANN_RELEASE] !== `${ns}.${release}`) return undefined;
  const renderRef = ann[ANN_RENDER_REF];
  const name = meta?.name;
  if (renderRef === undefined || name === undefined) return undefined;
  return {
    name,
    resourceVersion: meta?.resourceVersion,
    renderRef,
    // Damaged bookkeeping shows as -1 and fails the checks in writeState().
    index: nonNegInt(ann[ANN_CHUNK_INDEX]) ?? -1,
    count: nonNegInt(ann[ANN_CHUNK_COUNT]) ?? -1,
    blobSha256: ann[ANN_BLOB_SHA256] ?? '',
    revision: ann[ANN_REVISION],
    storedAt: ann[ANN_STORED_AT],
    data: undefined,
    bytes: nonNegInt(ann[ANN_CHUNK_BYTES], SIZE_INT),
  };
}

export function parseChunk(ns: string, release: string, secret: SecretBody): Chunk | undefined {
  if (secret.type !== SECRET_TYPE) return undefined;
  const head = parseChunkMeta(ns, release, secret.metadata);
  if (head === undefined) return undefined;
  const raw = secret.data?.[DATA_KEY];
  // The data itself, not what an annotation says about it.
  const { bytes: _annotated, ...rest } = head;
  return { ...rest, data: raw === undefined ? undefined : Buffer.from(raw, 'base64') };
}

/** Chunks read without data whose size is not annotated (written before ANN_CHUNK_BYTES existed). */
export function lacksSize(chunks: readonly Chunk[]): boolean {
  return chunks.some((c) => c.data === undefined && c.bytes === undefined);
}

/** The chunks of one committed write (chunk 0's count and digest), or why they are not whole. */
export type WriteState =
  | { readonly kind: 'absent' }
  | { readonly kind: 'complete'; readonly count: number; readonly blobSha256: string }
  | { readonly kind: 'broken'; readonly detail: string };

export function writeState(chunks: readonly Chunk[]): WriteState {
  const head = chunks.find((c) => c.index === 0);
  if (head === undefined) return { kind: 'absent' };
  if (head.count < 1) return { kind: 'broken', detail: 'chunk 0 has no valid chunk count' };
  for (let i = 0; i < head.count; i++) {
    const c = chunks.find((x) => x.index === i);
    if (c === undefined) return { kind: 'broken', detail: `chunk ${i} of ${head.count} is missing` };
    if (c.count !== head.count || c.blobSha256 !== head.blobSha256) {
      return { kind: 'broken', detail: `chunk ${i} of ${head.count} belongs to another write` };
    }
    if (c.data === undefined && c.bytes === undefined) {
      return { kind: 'broken', detail: `chunk ${i} of ${head.count} has no data` };
    }
  }
  return { kind: 'complete', count: head.count, blobSha256: head.blobSha256 };
}

/** Bytes hashed between two turns of the event loop: a 50 MB render is ~13 slices of a few ms each. */
const HASH_SLICE = 4 * 1024 * 1024;

/** sha256Hex of `data`, yielding a turn between slices so a large render never holds the event loop. */
export async function sha256HexYielding(data: Uint8Array): Promise<string> {
  const h = createHash('sha256');
  for (let at = 0; at < data.length; at += HASH_SLICE) {
    h.update(data.subarray(at, at + HASH_SLICE));
    if (at + HASH_SLICE < data.length) await new Promise((resolve) => setImmediate(resolve));
  }
  return h.digest('hex');
}

/**
 * The chunks of `renderRef` joined, their digest checked and gunzipped: the stored JSON text, with
 * whether it is the canonical text that hashes to the ref (what a put writes). undefined when not
 * committed; RenderStoreCorruptError otherwise.
 */
async function storedText(
  renderRef: string,
  chunks: readonly Chunk[],
): Promise<{ text: Buffer; canonical: boolean } | undefined> {
  const mine = chunks.filter((c) => c.renderRef === renderRef);
  const state = writeState(mine);
  switch (state.kind) {
    case 'absent':
      return undefined;
    case 'broken':
      throw new RenderStoreCorruptError(renderRef, state.detail);
    case 'complete':
      break;
    default:
      return assertNever(state);
  }
  const parts: Buffer[] = [];
  for (let i = 0; i < state.count; i++) {
    const data = mine.find((c) => c.index === i)?.data;
    // writeState let it through, so it came from a metadata-only read: a caller's bug, not corruption.
    if (data === undefined) throw new Error(`assemble: chunk ${i} of ${renderRef} was read without its data`);
    parts.push(data);
  }
  const blob = Buffer.concat(parts);
  if ((await sha256HexYielding(blob)) !== state.blobSha256) {
    throw new RenderStoreCorruptError(renderRef, 'blob digest does not match the chunks');
  }
  let text: Buffer;
  try {
    text = await gunzip(blob);
  } catch (err) {
    throw new RenderStoreCorruptError(renderRef, `cannot decode: ${errorMessage(err)}`);
  }
  return { text, canonical: `sha256:${await sha256HexYielding(text)}` === renderRef };
}

function parseRender(renderRef: string, text: Buffer): Render {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.toString('utf8'));
  } catch (err) {
    throw new RenderStoreCorruptError(renderRef, `cannot decode: ${errorMessage(err)}`);
  }
  if (!isRenderShape(parsed)) throw new RenderStoreCorruptError(renderRef, 'not a {hooks, objects} render');
  return parsed;
}

/** Reassembles and verifies: undefined when not committed; RenderStoreCorruptError otherwise. */
export async function assemble(renderRef: string, chunks: readonly Chunk[]): Promise<Render | undefined> {
  const stored = await storedText(renderRef, chunks);
  if (stored === undefined) return undefined;
  const parsed = parseRender(renderRef, stored.text);
  // A put stores the canonical JSON itself, so its bytes hash to the ref: serialising the render again
  // (a second of the event loop at 50 MB) is needed only for text written some other way.
  if (stored.canonical) return parsed;
  const actual = renderRefOf(parsed);
  if (actual !== renderRef) throw new RenderStoreCorruptError(renderRef, `content hashes to ${actual}`);
  return parsed;
}

const HOOKS_HEAD = Buffer.from('{"hooks":[');
const OBJECTS_KEY = Buffer.from('],"objects":[');

/**
 * Only the hooks of a stored render (what a deletion runs), verified as `assemble` verifies: the
 * canonical text puts the hooks first, so they are parsed without the objects — at 50 MB, the parse of
 * the whole render held the event loop ~0.45 s, over 1 s under load (docs/design.md#large-renders).
 * The first `],"objects":[` may sit inside a hook; the head then does not parse, and the whole does.
 */
export async function assembleHooks(
  renderRef: string,
  chunks: readonly Chunk[],
): Promise<Render['hooks'] | undefined> {
  const stored = await storedText(renderRef, chunks);
  if (stored === undefined) return undefined;
  const { text } = stored;
  const cut = text.indexOf(OBJECTS_KEY);
  if (stored.canonical && text.subarray(0, HOOKS_HEAD.length).equals(HOOKS_HEAD) && cut > 0) {
    try {
      const head: unknown = JSON.parse(`${text.subarray(0, cut + 1).toString('utf8')}}`);
      const hooks = (head as { hooks?: unknown }).hooks;
      if (Array.isArray(hooks)) return hooks as Render['hooks'];
    } catch {
      // the cut fell inside a hook: parse the whole below
    }
  }
  return (await assemble(renderRef, chunks))?.hooks;
}

function isRenderShape(v: unknown): v is Render {
  if (v === null || typeof v !== 'object') return false;
  const r = v as Record<string, unknown>;
  return Array.isArray(r.hooks) && Array.isArray(r.objects);
}

/** One entry per render ref, newest first; partial writes show with complete=false. */
export function summarize(chunks: readonly Chunk[]): StoredRenderMeta[] {
  const byRef = new Map<string, Chunk[]>();
  for (const c of chunks) {
    const list = byRef.get(c.renderRef);
    if (list === undefined) byRef.set(c.renderRef, [c]);
    else list.push(c);
  }
  const out: StoredRenderMeta[] = [];
  for (const [renderRef, list] of byRef) {
    const head = list.find((c) => c.index === 0);
    const state = writeState(list);
    out.push({
      renderRef,
      revision: head?.revision,
      storedAt: head?.storedAt,
      chunkCount: head?.count ?? Math.max(...list.map((c) => c.count)),
      complete: state.kind === 'complete',
      storedBytes: list.reduce((n, c) => n + (c.data?.length ?? c.bytes ?? 0), 0),
    });
  }
  return out.sort(
    (a, b) => (b.storedAt ?? '').localeCompare(a.storedAt ?? '') || a.renderRef.localeCompare(b.renderRef),
  );
}
