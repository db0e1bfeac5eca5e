// The Plain renderer: file selection, order, substitution and collected problems.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${NAME} in plain strings is the input under test
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CachedPlainRenderer, manifestFormat, PlainRenderer } from './plain.ts';
import { OFF_THREAD_MIN_BYTES } from './tools/parse-off-thread.ts';
import type { SourceFile } from './types.ts';

const file = (path: string, text: string): SourceFile => ({ path, data: new TextEncoder().encode(text) });
const cm = (name: string, extra = '') =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${extra}`;

describe('manifestFormat', () => {
  const table: [string, string | undefined][] = [
    ['a.yaml', 'yaml'],
    ['dir/b.yml', 'yaml'],
    ['c.JSON', 'json'],
    ['Chart.YAML', 'yaml'],
    ['README.md', undefined],
    ['.hidden.yaml', undefined],
    ['.github/workflows/ci.yaml', undefined],
    ['a/.cache/x.json', undefined],
    ['yaml', undefined],
  ];
  for (const [path, want] of table) it(`${path} → ${want}`, () => assert.equal(manifestFormat(path), want));
});

describe('PlainRenderer', () => {
  it('reads every manifest file in path order, recursively', () => {
    const r = PlainRenderer.render(
      [
        file('z.yaml', cm('z')),
        file('README.md', 'not yaml: ['),
        file('sub/a.json', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"j"}}'),
        file('a.yml', `${cm('a1')}---\n${cm('a2')}`),
        file('.git/config.yaml', 'garbage: ['),
      ],
      {},
    );
    assert.ok(r.ok);
    assert.deepEqual(
      r.value.map((m) => `${m.origin.file}#${m.origin.document}`),
      ['a.yml#1', 'a.yml#2', 'sub/a.json#1', 'z.yaml#1'],
    );
  });

  it('substitutes before parsing, only when substitute is set', () => {
    const text = cm('web-${ENV}', 'data:\n  tier: ${TIER:=web}\n  home: ${HOME}\n  lit: $${ENV}\n');
    const withVars = PlainRenderer.render([file('a.yaml', text)], { substitute: { ENV: 'prod' } });
    assert.ok(withVars.ok);
    assert.deepEqual(withVars.value[0]?.object, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'web-prod' },
      data: { tier: 'web', home: '${HOME}', lit: '${ENV}' },
    });
    const without = PlainRenderer.render([file('a.yaml', text)], {});
    assert.ok(without.ok);
    assert.deepEqual(without.value[0]?.object.metadata, { name: 'web-${ENV}' });
  });

  it('a substituted value can make a number', () => {
    const r = PlainRenderer.render([file('a.yaml', 'spec:\n  replicas: ${REPLICAS}\n')], {
      substitute: { REPLICAS: '3' },
    });
    assert.ok(r.ok);
    assert.deepEqual(r.value[0]?.object, { spec: { replicas: 3 } });
  });

  it('collects problems from every file', () => {
    const r = PlainRenderer.render(
      [file('a.yaml', 'a: [\n'), file('b.yaml', 'b: [\n'), file('c.yaml', cm('c'))],
      {},
    );
    assert.equal(r.ok, false);
    const files = r.ok ? [] : [...new Set(r.problems.map((p) => p.where.split(' ')[0]))];
    assert.deepEqual(files, ['a.yaml', 'b.yaml']);
  });

  it('rejects a source with no manifest files', () => {
    const r = PlainRenderer.render([file('README.md', '# hi')], {});
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : (r.problems[0]?.message ?? ''), /no manifest files/);
  });

  it('rejects a file that is not UTF-8', () => {
    const r = PlainRenderer.render(
      [{ path: 'bin.yaml', data: new Uint8Array([0xff, 0xfe, 0x00, 0xc3]) }],
      {},
    );
    assert.equal(r.ok, false);
    assert.deepEqual(r.ok ? [] : r.problems, [{ where: 'bin.yaml', message: 'not valid UTF-8' }]);
  });

  it('skips a UTF-8 byte order mark', () => {
    const r = PlainRenderer.render([file('a.yaml', `\uFEFF${cm('a')}`)], {});
    assert.ok(r.ok);
    assert.equal(r.value[0]?.object.kind, 'ConfigMap');
  });

  it('a file of empty documents gives no objects', () => {
    const r = PlainRenderer.render([file('a.yaml', '---\n---\n')], {});
    assert.ok(r.ok);
    assert.deepEqual(r.value, []);
  });
});

describe('CachedPlainRenderer', () => {
  /** `n` files of 40 ConfigMaps of ~1 KiB each, with a variable to substitute. */
  const bigFiles = (n: number) =>
    Array.from({ length: n }, (_, f) =>
      file(
        `f${String(n - f).padStart(3, '0')}.yaml`,
        Array.from({ length: 40 }, (_, i) =>
          cm(`c-${f}-${i}`, `data:\n  env: \${ENV}\n  v: "${'x'.repeat(1000)}"\n`),
        ).join('---\n'),
      ),
    );
  const size = (files: readonly SourceFile[]) => files.reduce((n, f) => n + f.data.length, 0);

  it('parses a render of 256 KiB or more in the parse child, with the same manifests as inline', async () => {
    const files = bigFiles(8);
    assert.ok(size(files) >= OFF_THREAD_MIN_BYTES, `${size(files)} bytes`);
    const options = { substitute: { ENV: 'prod' } };
    assert.deepEqual(
      await new CachedPlainRenderer().render(files, options),
      PlainRenderer.render(files, options),
    );
    // Routed to a child, which a cancelled reconcile never starts; a small render parses inline.
    const cancelled = { ...options, signal: AbortSignal.abort() };
    assert.deepEqual(await new CachedPlainRenderer().render(files, cancelled), {
      ok: false,
      problems: [{ where: '', message: 'Plain was stopped: the reconcile was cancelled' }],
    });
    const small = bigFiles(1);
    assert.ok(size(small) < OFF_THREAD_MIN_BYTES);
    assert.ok((await new CachedPlainRenderer().render(small, cancelled)).ok);
  });

  it('gives the same problems from the child as inline, each naming its file', async () => {
    const files = [
      ...bigFiles(8),
      { path: 'bad-utf8.yaml', data: new Uint8Array([0x6b, 0x3a, 0x20, 0xff]) },
      file('broken.yaml', 'a: [\n'),
    ];
    const inline = PlainRenderer.render(files, {});
    assert.equal(inline.ok, false);
    assert.deepEqual(await new CachedPlainRenderer().render(files, {}), inline);
  });
});
