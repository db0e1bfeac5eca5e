// The render cache: one key for the same files in any order and the same options; another for any
// changed byte, option or resolved input; failures are not kept; least recently used out first.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RenderCache, renderKey } from './cache.ts';
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
  ];
  for (const [what, key] of changed) it(`changes with ${what}`, () => assert.notEqual(key, base));
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
    const c = new RenderCache(2);
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
});
