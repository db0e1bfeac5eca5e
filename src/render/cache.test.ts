// The render cache: one key for the same files in any order and the same options; another for any
// changed byte, option or resolved input; failures are not kept; least recently used out first, by
// entries and by bytes (a table of bounds and the order of gets).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approxJsonBytes, RenderCache, renderKey, resultBytes } from './cache.ts';
import type { RenderResult } from './renderer.ts';

const f = (path: string, text: string) => ({ path, data: new TextEncoder().encode(text) });
const files = [f('Chart.yaml', 'name: a'), f('values.yaml', 'x: 1')];
const opts = { render: { type: 'Helm' as const }, namespace: 'web', name: 'app' };

describe('renderKey', () => {
  const base = renderKey('helm', files, opts);
  it('ignores the order of files', () => assert.equal(renderKey('helm', [...files].reverse(), opts), base));
  const changed: [string, string][] = [
    ['a file', renderKey('helm', [files[0] ?? f('', ''), f('values.yaml', 'x: 2')], opts)],
    ['a path', renderKey('helm', [files[0] ?? f('', ''), f('values-2.yaml', 'x: 1')], opts)],
    ['the tool', renderKey('kustomize', files, opts)],
    ['the namespace', renderKey('helm', files, { ...opts, namespace: 'other' })],
    ['a valuesFrom value', renderKey('helm', files, { ...opts, inputs: { valuesFrom: [{ a: 1 }] } })],
    [
      'the capabilities',
      renderKey('helm', files, {
        ...opts,
        inputs: { capabilities: { kubeVersion: 'v1.36.0', apiVersions: [] } },
      }),
    ],
    ['the source path field', renderKey('helm', files, { ...opts, sourcePath: { field: 'DIR', path: 'a' } })],
    [
      "the source's credentials (a chart's dependencies are fetched with them)",
      renderKey('helm', files, { ...opts, dependencyAccess: { credentials: { password: 'x' } } }),
    ],
  ];
  for (const [what, key] of changed) it(`changes with ${what}`, () => assert.notEqual(key, base));
  it("another Release's credentials are another key, and no key holds them as they are", () => {
    const a = renderKey('helm', files, { ...opts, dependencyAccess: { credentials: { password: 'x' } } });
    const b = renderKey('helm', files, { ...opts, dependencyAccess: { credentials: { password: 'y' } } });
    assert.notEqual(a, b);
    assert.equal(
      renderKey('helm', files, { ...opts, dependencyAccess: { host: 'h' } }),
      base,
      'no credentials',
    );
  });
});

describe('RenderCache', () => {
  const good: RenderResult = { ok: true, value: [] };
  const bad: RenderResult = { ok: false, problems: [{ where: '', message: 'no' }] };
  it('renders once per key and keeps no failure', async () => {
    const c = new RenderCache();
    let n = 0;
    const render = (r: RenderResult) => async () => {
      n++;
      return r;
    };
    await c.getOrRender('a', render(good));
    await c.getOrRender('a', render(good));
    await c.getOrRender('b', render(bad));
    await c.getOrRender('b', render(bad));
    assert.equal(n, 3);
    assert.deepEqual([c.hits, c.misses], [1, 3]);
  });
  it('concurrent renders of one key share one run', async () => {
    const c = new RenderCache();
    let n = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const render = async () => {
      n++;
      await gate;
      return good;
    };
    const both = Promise.all([c.getOrRender('k', render), c.getOrRender('k', render)]);
    release();
    assert.deepEqual(await both, [good, good]);
    assert.equal(n, 1);
  });
  it('drops the least recently used entry past its size', async () => {
    const c = new RenderCache({ maxEntries: 2 });
    const seen: string[] = [];
    const get = (k: string) =>
      c.getOrRender(k, async () => {
        seen.push(k);
        return good;
      });
    await get('a');
    await get('b');
    await get('a'); // a is now the most recent
    await get('c'); // b goes
    await get('a');
    await get('b');
    assert.deepEqual(seen, ['a', 'b', 'c', 'b']);
  });
  it('drops a result once no Release holds it: the owner deleted, or moved to another render', async () => {
    const dropped: number[] = [];
    const c = new RenderCache({ onDropped: (bytes) => dropped.push(bytes) });
    const seen: string[] = [];
    const get = (k: string, owner?: string) =>
      c.getOrRender(
        k,
        async () => {
          seen.push(k);
          return good;
        },
        owner,
      );
    await get('shared', 'ns/a');
    await get('shared', 'ns/b');
    await get('large', 'ns/big');
    await get('unowned');
    assert.deepEqual([c.size, c.held], [3, 2]);
    c.forget('ns/big'); // deleted: its render goes at once
    c.forget('ns/a'); // b still holds the shared one
    c.forget('ns/gone'); // never rendered here: nothing happens
    assert.deepEqual([c.size, c.held], [2, 1]);
    assert.deepEqual(
      dropped,
      [resultBytes(good)],
      'onDropped is told of the one result that left, by weight',
    );
    await get('shared', 'ns/b');
    await get('large', 'ns/big');
    assert.deepEqual(seen, ['shared', 'large', 'unowned', 'large']);
    await get('next', 'ns/b'); // b's source changed: its old render goes
    await get('shared');
    assert.deepEqual(seen, ['shared', 'large', 'unowned', 'large', 'next', 'shared']);
    await get('unowned'); // an entry no owner held stays until the bound pushes it out
    assert.equal(seen.filter((k) => k === 'unowned').length, 1);
  });
});

describe('approxJsonBytes', () => {
  const rows: readonly [string, unknown, number][] = [
    ['a string: its length and quotes', 'abc', 5],
    ['null', null, 4],
    ['a number', 42, 8],
    ['a boolean', true, 5],
    ['an empty object', {}, 2],
    ['an object: key, quotes, colon and comma', { ab: 'x' }, 2 + 2 + 4 + 3],
    ['an array: items and commas', ['x', 'y'], 2 + 4 + 4],
    ['nested', { a: { b: [1] } }, 2 + 1 + 4 + (2 + 1 + 4 + (2 + 8 + 1))],
  ];
  for (const [what, value, want] of rows) it(what, () => assert.equal(approxJsonBytes(value), want));
  it('is within a small factor of JSON.stringify for a manifest', () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a' },
      data: { pad: 'x'.repeat(2000) },
    };
    const exact = JSON.stringify(cm).length;
    const approx = approxJsonBytes(cm);
    assert.ok(approx >= exact && approx < exact * 1.2, `${approx} vs ${exact}`);
  });
});

describe('RenderCache bounds', () => {
  /** A result of one manifest weighing about `bytes`. */
  const weighing = (bytes: number): RenderResult => ({
    ok: true,
    value: [{ object: { p: 'x'.repeat(Math.max(0, bytes - 9)) }, origin: { file: 'f', document: 1 } }],
  });
  it('weighs a result by its objects', () => assert.equal(resultBytes(weighing(1000)), 1000));
  const rows: readonly {
    readonly name: string;
    readonly bounds: { maxEntries?: number; maxBytes?: number };
    /** key:bytes, in the order asked for; a key asked again is a hit when kept. */
    readonly gets: readonly string[];
    /** The keys rendered (misses), in order. */
    readonly rendered: readonly string[];
    readonly bytes: number;
  }[] = [
    {
      name: 'all fit: each key rendered once',
      bounds: { maxBytes: 3000 },
      gets: ['a:1000', 'b:1000', 'a:1000', 'b:1000'],
      rendered: ['a', 'b'],
      bytes: 2000,
    },
    {
      name: 'over the bytes: the least recently used goes',
      bounds: { maxBytes: 2500 },
      gets: ['a:1000', 'b:1000', 'a:1000', 'c:1000', 'a:1000', 'b:1000'],
      rendered: ['a', 'b', 'c', 'b'],
      bytes: 2000,
    },
    {
      name: 'one heavy result evicts several light ones',
      bounds: { maxBytes: 3000 },
      gets: ['a:1000', 'b:1000', 'c:1000', 'h:2500', 'a:1000', 'h:2500'],
      rendered: ['a', 'b', 'c', 'h', 'a', 'h'],
      bytes: 2500,
    },
    {
      name: 'a result heavier than the whole bound is not kept, and evicts nothing',
      bounds: { maxBytes: 2000 },
      gets: ['a:1000', 'h:5000', 'a:1000', 'h:5000'],
      rendered: ['a', 'h', 'h'],
      bytes: 1000,
    },
    {
      name: 'a result of exactly the bound is kept alone',
      bounds: { maxBytes: 2000 },
      gets: ['a:1000', 'h:2000', 'h:2000', 'a:1000'],
      rendered: ['a', 'h', 'a'],
      bytes: 1000,
    },
    {
      name: 'the entry bound holds when the bytes would fit',
      bounds: { maxEntries: 1, maxBytes: 1_000_000 },
      gets: ['a:10', 'b:10', 'a:10'],
      rendered: ['a', 'b', 'a'],
      bytes: 10,
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const c = new RenderCache(row.bounds);
      const rendered: string[] = [];
      for (const g of row.gets) {
        const [key = '', bytes = '0'] = g.split(':');
        await c.getOrRender(key, async () => {
          rendered.push(key);
          return weighing(Number(bytes));
        });
      }
      assert.deepEqual(rendered, row.rendered);
      assert.equal(c.bytes, row.bytes);
    });
  }
});
