import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { renderRef as renderRefOf } from '../render/canonical.ts';
import { RenderStoreCorruptError } from './errors.ts';
import {
  ANN_CHUNK_BYTES,
  assemble,
  assembleHooks,
  type Chunk,
  chunkName,
  chunkSecret,
  encodeRender,
  isRenderRef,
  lacksSize,
  parseChunk,
  parseChunkMeta,
  refLabelValue,
  releaseLabelValue,
  sha256Hex,
  sha256HexYielding,
  summarize,
} from './layout.ts';
import type { Render } from './types.ts';

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function bigRender(bytes: number): Render {
  return {
    hooks: [],
    objects: [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'big', namespace: 'ns' },
        data: { blob: randomBytes(bytes).toString('base64') },
      },
    ],
  };
}

async function chunksOf(render: Render, chunkBytes: number, release = 'web', ns = 'ns'): Promise<Chunk[]> {
  const renderRef = renderRefOf(render);
  const enc = await encodeRender(render, chunkBytes);
  const meta = {
    ns,
    release,
    renderRef,
    revision: 'rev1',
    storedAt: '2030-01-01T00:00:00Z',
    owner: undefined,
  };
  return enc.chunks.map((_, i) => {
    const c = parseChunk(ns, release, chunkSecret(meta, enc, i));
    assert.ok(c);
    return c;
  });
}

/** A render stored as one chunk of `blob`, whatever it holds: text written other than by a put. */
function oneChunk(renderRef: string, blob: Buffer): Chunk {
  return {
    name: 'x',
    resourceVersion: undefined,
    renderRef,
    index: 0,
    count: 1,
    blobSha256: sha256Hex(blob),
    revision: undefined,
    storedAt: undefined,
    data: blob,
  };
}

test('label values fit 63 chars and stay unique when cut', async () => {
  assert.equal(releaseLabelValue('prod', 'web'), 'prod.web');
  const long1 = releaseLabelValue('n'.repeat(40), `${'a'.repeat(40)}-1`);
  const long2 = releaseLabelValue('n'.repeat(40), `${'a'.repeat(40)}-2`);
  for (const v of [long1, long2]) {
    assert.ok(v.length <= 63, v);
    assert.match(v, LABEL_VALUE);
  }
  assert.notEqual(long1, long2);
  const ref = `sha256:${'ab'.repeat(32)}`;
  assert.equal(refLabelValue(ref), 'ab'.repeat(32).slice(0, 63));
});

test('chunk names are valid, short-ref named, and distinct for long release names', async () => {
  const ref = `sha256:${'0123456789abcdef'.repeat(4)}`;
  assert.equal(chunkName('web', ref, 2), 'convoy-render-web-0123456789abcdef-2');
  const a = chunkName(`${'x'.repeat(250)}.a`, ref, 0);
  const b = chunkName(`${'x'.repeat(250)}.b`, ref, 0);
  for (const n of [a, b]) {
    assert.ok(n.length <= 253, String(n.length));
    assert.match(n, SUBDOMAIN);
  }
  assert.notEqual(a, b);
});

test('a small render is one chunk and round-trips', async () => {
  const render: Render = {
    hooks: [],
    objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } }],
  };
  const chunks = await chunksOf(render, 1024);
  assert.equal(chunks.length, 1);
  assert.deepEqual(await assemble(renderRefOf(render), chunks), render);
});

test('an incompressible render is split at the chunk size and round-trips', async () => {
  const render = bigRender(10_000);
  const chunks = await chunksOf(render, 4096);
  assert.ok(chunks.length >= 3, String(chunks.length));
  for (const c of chunks) assert.ok((c.data?.length ?? 0) <= 4096);
  assert.deepEqual(await assemble(renderRefOf(render), chunks.toReversed()), render);
});

test('without chunk 0 a render reads as not stored', async () => {
  const render = bigRender(10_000);
  assert.equal(await assemble(renderRefOf(render), (await chunksOf(render, 4096)).slice(1)), undefined);
});

test('damage is reported as corruption', async () => {
  const render = bigRender(10_000);
  const ref = renderRefOf(render);
  const good = await chunksOf(render, 4096);
  const flip = (c: Chunk): Chunk => {
    const data = Buffer.from(c.data ?? Buffer.alloc(0));
    data[0] = (data[0] ?? 0) ^ 1;
    return { ...c, data };
  };
  const other = (await chunksOf(bigRender(10_000), 4096)).map((c) => ({ ...c, renderRef: ref }));
  const damaged: [string, Chunk[], RegExp][] = [
    ['a middle chunk is missing', good.filter((c) => c.index !== 1), /chunk 1 of \d+ is missing/],
    ['a chunk is from another write', [good[0], other[1], ...good.slice(2)] as Chunk[], /another write/],
    ['a byte flipped', [good[0], flip(good[1] as Chunk), ...good.slice(2)] as Chunk[], /digest/],
    ['chunk data gone', good.map((c) => (c.index === 2 ? { ...c, data: undefined } : c)), /no data/],
  ];
  for (const [what, chunks, msg] of damaged) {
    await assert.rejects(
      () => assemble(ref, chunks),
      (e: unknown) => e instanceof RenderStoreCorruptError && msg.test(e.message),
      what,
    );
  }
});

test('content that is well-formed but not what the ref names is corrupt', async () => {
  const render = bigRender(100);
  const ref = renderRefOf(render);
  const forged: Render = {
    hooks: [],
    objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'evil' } }],
  };
  const c = oneChunk(ref, gzipSync(JSON.stringify(forged)));
  await assert.rejects(() => assemble(ref, [c]), /content hashes to sha256:/);
  const notRender = gzipSync('{"objects":[]}');
  await assert.rejects(
    () => assemble(ref, [{ ...c, data: notRender, blobSha256: sha256Hex(notRender) }]),
    /not a \{hooks, objects\}/,
  );
  const notGzip = Buffer.from('plain');
  await assert.rejects(
    () => assemble(ref, [{ ...c, data: notGzip, blobSha256: sha256Hex(notGzip) }]),
    /cannot decode/,
  );
});

test('parseChunk ignores Secrets of other releases and other types', async () => {
  const render = bigRender(10);
  const enc = await encodeRender(render);
  const meta = {
    ns: 'ns',
    release: 'web',
    renderRef: renderRefOf(render),
    revision: undefined,
    storedAt: 't',
    owner: undefined,
  };
  const s = chunkSecret(meta, enc, 0);
  assert.ok(parseChunk('ns', 'web', s));
  assert.equal(parseChunk('ns', 'web2', s), undefined);
  assert.equal(parseChunk('ns', 'web', { ...s, type: 'Opaque' }), undefined);
});

test('summarize: one entry per ref, newest first, partial writes incomplete', async () => {
  const a = (await chunksOf(bigRender(10_000), 4096)).map((c) => ({
    ...c,
    storedAt: '2030-01-01T00:00:01Z',
  }));
  const b = (await chunksOf(bigRender(10), 4096)).map((c) => ({ ...c, storedAt: '2030-01-01T00:00:02Z' }));
  const partial = (await chunksOf(bigRender(10_000), 4096)).filter((c) => c.index !== 0);
  const got = summarize([...a, ...b, ...partial]);
  assert.deepEqual(
    got.map((m) => [m.renderRef, m.complete, m.chunkCount]),
    [
      [b[0]?.renderRef, true, 1],
      [a[0]?.renderRef, true, a.length],
      [partial[0]?.renderRef, false, partial[0]?.count],
    ],
  );
  assert.equal(got[1]?.revision, 'rev1');
  assert.equal(
    got[1]?.storedBytes,
    a.reduce((n, c) => n + (c.data?.length ?? 0), 0),
  );
});

test('isRenderRef accepts only sha256: and 64 lowercase hex digits', async () => {
  const ref = `sha256:${'0a'.repeat(32)}`;
  assert.ok(isRenderRef(ref));
  assert.ok(!isRenderRef(ref.toUpperCase()));
  assert.ok(!isRenderRef('sha256:abc'));
  assert.ok(!isRenderRef('0a'.repeat(32)));
});

test('integer-like keys are hashed in string order, as src/render defines the ref', async () => {
  const render: Render = {
    hooks: [],
    objects: [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n' }, data: { '10': 'a', '9': 'b' } },
    ],
  };
  const chunks = await chunksOf(render, 1 << 20);
  assert.deepEqual(await assemble(renderRefOf(render), chunks), render);
});

test('metadata alone (a metadata-only list) summarizes as the full chunks do', async () => {
  const big = bigRender(10_000);
  const renderRef = renderRefOf(big);
  const enc = await encodeRender(big, 4096);
  const meta = { ns: 'ns', release: 'web', renderRef, revision: 'r', storedAt: 't', owner: undefined };
  const secrets = enc.chunks.map((_, i) => chunkSecret(meta, enc, i));
  const full = secrets.map((s) => parseChunk('ns', 'web', s) as Chunk);
  const heads = secrets.map((s) => parseChunkMeta('ns', 'web', s.metadata) as Chunk);
  assert.ok(heads.every((h) => h.data === undefined && h.bytes !== undefined));
  assert.ok(
    full.every((c) => c.bytes === undefined),
    'a full chunk has its size from its data',
  );
  assert.deepEqual(summarize(heads), summarize(full));
  assert.equal(
    summarize(heads)[0]?.storedBytes,
    enc.chunks.reduce((n, c) => n + c.length, 0),
  );
  assert.equal(lacksSize(heads), false);
  assert.equal(lacksSize(full), false);
  assert.equal(parseChunkMeta('ns', 'web2', secrets[0]?.metadata), undefined);

  // Written before the size annotation: list() must read the data to know the sizes.
  const unannotated = secrets.map((s) => {
    const { [ANN_CHUNK_BYTES]: _size, ...annotations } = s.metadata?.annotations ?? {};
    return parseChunkMeta('ns', 'web', { ...s.metadata, annotations }) as Chunk;
  });
  assert.equal(lacksSize(unannotated), true);
  // Reassembly needs the data: a caller handing it headers gets a bug report, not "corrupt".
  await assert.rejects(
    () => assemble(renderRef, heads),
    (e: unknown) => !(e instanceof RenderStoreCorruptError) && /read without its data/.test(String(e)),
  );
});

test('a render of 10,000 objects and 20 MiB: every chunk Secret under the 1 MiB data and 3 MiB request limits, reassembled whole', async () => {
  const objects = Array.from({ length: 10_000 }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${String(i).padStart(5, '0')}`, namespace: 'ns' },
    // random, so gzip cannot shrink it away: ~2 KiB per object, ~20 MiB in all
    data: { payload: randomBytes(1536).toString('base64') },
  }));
  const render: Render = { hooks: [], objects };
  const json = Buffer.byteLength(JSON.stringify(objects));
  assert.ok(json >= 20 * 1024 * 1024, String(json));
  const renderRef = renderRefOf(render);
  const enc = await encodeRender(render);
  const meta = { ns: 'ns', release: 'web', renderRef, revision: 'r', storedAt: 't', owner: undefined };
  const secrets = enc.chunks.map((_, i) => chunkSecret(meta, enc, i));
  assert.ok(secrets.length >= 16, `${secrets.length} chunks`);
  for (const s of secrets) {
    assert.ok(Buffer.from(s.data?.chunk ?? '', 'base64').length <= 1024 * 1024);
    assert.ok(Buffer.byteLength(JSON.stringify(s)) < 3 * 1024 * 1024);
  }
  const back = await assemble(
    renderRef,
    secrets.map((s) => parseChunk('ns', 'web', s) as Chunk),
  );
  assert.equal(back?.objects.length, 10_000);
  assert.deepEqual(back?.objects[9_999], objects[9_999]);
});

test('a deletion reads the hooks alone, verified as the whole render is', async () => {
  const hook = (name: string, extra: object = {}) => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'ns', annotations: { 'convoy.kumodo.io/hook': 'PreDelete' } },
    ...extra,
  });
  const cases: [string, Render][] = [
    ['no hooks', bigRender(5_000)],
    ['two hooks before large objects', { ...bigRender(50_000), hooks: [hook('a'), hook('b')] }],
    // The text `],"objects":[` inside a hook: the head does not parse, the whole does.
    [
      'a hook holding an "objects" list',
      { ...bigRender(5_000), hooks: [hook('c', { spec: { a: [1], objects: [2] } })] },
    ],
  ];
  for (const [what, render] of cases) {
    const ref = renderRefOf(render);
    const chunks = await chunksOf(render, 4096);
    assert.deepEqual(await assembleHooks(ref, chunks), render.hooks, what);
    assert.equal(await assembleHooks(ref, chunks.slice(1)), undefined, `${what}: not committed`);
    const flipped = chunks.map((c) =>
      c.index === 1
        ? { ...c, data: Buffer.from((c.data ?? Buffer.alloc(0)).map((b, i) => (i === 0 ? b ^ 1 : b))) }
        : c,
    );
    await assert.rejects(() => assembleHooks(ref, flipped), RenderStoreCorruptError, `${what}: damaged`);
  }
  // Text not written canonically is checked by its content, as assemble checks it.
  const render = bigRender(100);
  const c = oneChunk(
    renderRefOf(render),
    gzipSync(JSON.stringify({ hooks: [hook('z')], objects: render.objects })),
  );
  await assert.rejects(() => assembleHooks(renderRefOf(render), [c]), /content hashes to sha256:/);
});

test('the yielding hash is the hash, across slices', async () => {
  for (const n of [0, 1, 4 * 1024 * 1024, 9 * 1024 * 1024 + 7]) {
    const data = randomBytes(n);
    assert.equal(await sha256HexYielding(data), sha256Hex(data), `${n} bytes`);
  }
});
