// Parsing manifest files: YAML 1.1 as kubectl reads it, JSON, lists, and located errors.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ManifestFormat, parseManifests } from './parse.ts';

const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;

describe('parseManifests', () => {
  it('reads every document and skips empty ones', () => {
    const r = parseManifests(
      `---\n${cm('a')}---\n# nothing here\n---\n---\n${cm('b')}...\n`,
      'f.yaml',
      'yaml',
    );
    assert.ok(r.ok);
    assert.deepEqual(
      r.value.map((m) => [m.object.metadata, m.origin]),
      [
        [{ name: 'a' }, { file: 'f.yaml', document: 1 }],
        [{ name: 'b' }, { file: 'f.yaml', document: 4 }],
      ],
    );
  });

  it('refuses keys YAML 1.1 reads as booleans (kubectl would name them "true"/"false"), naming the key as written', () => {
    const r = parseManifests('kind: ConfigMap\nmetadata:\n  labels:\n    n: x\n', 'f.yaml', 'yaml');
    assert.ok(!r.ok);
    assert.deepEqual(r.problems, [
      {
        where: 'f.yaml document 1',
        message:
          'key n (in metadata.labels) is the boolean false in YAML 1.1, as kubectl reads it: quote it ("n") to mean the text',
      },
    ]);
    const quoted = parseManifests('metadata:\n  labels:\n    "n": x\n    y: true\n', 'f.yaml', 'yaml');
    assert.ok(
      !quoted.ok &&
        quoted.problems.length === 1 &&
        /key y \(in metadata.labels\)/.test(quoted.problems[0]?.message ?? ''),
    );
    const ok = parseManifests('metadata:\n  labels:\n    "n": x\n    "y": "yes"\n', 'f.yaml', 'yaml');
    assert.ok(ok.ok);
    assert.deepEqual(ok.value[0]?.object, { metadata: { labels: { n: 'x', y: 'yes' } } });
  });

  const oneObject: [string, string, string, ManifestFormat, unknown][] = [
    [
      'reads YAML 1.1 as kubectl does: octal modes, yes/no booleans, timestamps as strings',
      'a: 0644\nb: yes\nc: 2024-01-02T03:04:05Z\nd: "0644"\ne: 1.5\n',
      'f.yaml',
      'yaml',
      { a: 420, b: true, c: '2024-01-02T03:04:05Z', d: '0644', e: 1.5 },
    ],
    [
      'expands anchors and merge keys',
      'base: &b {x: 1}\nuse:\n  <<: *b\n  z: 2\n',
      'f.yaml',
      'yaml',
      { base: { x: 1 }, use: { x: 1, z: 2 } },
    ],
    [
      'reads JSON files as JSON',
      '{"apiVersion": "v1", "kind": "ConfigMap", "n": 1e3, "s": "yes"}',
      'f.json',
      'json',
      { apiVersion: 'v1', kind: 'ConfigMap', n: 1000, s: 'yes' },
    ],
  ];
  for (const [name, text, file, format, want] of oneObject) {
    it(name, () => {
      const r = parseManifests(text, file, format);
      assert.ok(r.ok);
      assert.deepEqual(r.value[0]?.object, want);
    });
  }

  it('flattens kind: List', () => {
    const r = parseManifests(
      `apiVersion: v1\nkind: List\nitems:\n- {kind: A}\n- {kind: B}\n`,
      'l.yaml',
      'yaml',
    );
    assert.ok(r.ok);
    assert.deepEqual(
      r.value.map((m) => [m.object.kind, m.origin.item]),
      [
        ['A', 1],
        ['B', 2],
      ],
    );
  });

  it('encodes !!binary as base64', () => {
    const r = parseManifests('data: !!binary aGVsbG8=\n', 'f.yaml', 'yaml');
    assert.ok(r.ok);
    assert.deepEqual(r.value[0]?.object, { data: 'aGVsbG8=' });
  });

  const bad: [string, string, string, RegExp][] = [
    [
      'malformed YAML names file, document, line and column',
      `${cm('a')}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [b\n  x: : :\n`,
      'yaml',
      /^apps\/web\.yaml document 2, line \d+ column \d+: /,
    ],
    [
      'a duplicate key',
      'a: 1\na: 2\n',
      'yaml',
      /^apps\/web\.yaml document 1, line 2 column 1: Map keys must be unique$/,
    ],
    [
      'a scalar document',
      'just a string\n',
      'yaml',
      /^apps\/web\.yaml document 1: document is not an object/,
    ],
    ['a list document', '- a\n- b\n', 'yaml', /document is not an object/],
    [
      'a huge integer',
      'spec:\n  count: 123456789012345678901\n',
      'yaml',
      /document 1: spec\.count: integer 123456789012345678901 is too large/,
    ],
    ['infinity', 'a: .inf\n', 'yaml', /document 1: a: Infinity is not a JSON number/],
    ['a set', 'a: !!set {x, y}\n', 'yaml', /a: unsupported YAML value/],
    [
      'a list item that is not an object',
      'kind: List\nitems: [1]\n',
      'yaml',
      /document 1 item 1: list item is not an object/,
    ],
    ['invalid JSON', '{"a": }', 'json', /^apps\/web\.yaml document 1, line 1 column \d+: /],
  ];
  for (const [name, text, format, want] of bad) {
    it(`reports ${name}`, () => {
      const r = parseManifests(text, 'apps/web.yaml', format as 'yaml' | 'json');
      assert.equal(r.ok, false);
      const messages = r.ok ? [] : r.problems.map((p) => `${p.where}: ${p.message}`);
      assert.ok(
        messages.some((m) => want.test(m)),
        messages.join('\n'),
      );
    });
  }

  it('reports the line of the error in a later document', () => {
    const text = `${cm('a')}---\n${cm('b')}  labels: {a: b\n`;
    const r = parseManifests(text, 'x.yaml', 'yaml');
    assert.equal(r.ok, false);
    const where = r.ok ? '' : (r.problems[0]?.where ?? '');
    const m = /^x\.yaml document 2, line (\d+) column \d+$/.exec(where);
    assert.ok(m, where);
    assert.ok(Number(m[1]) >= 10, where); // an absolute line in the file, not inside the document
  });

  it('stops alias bombs', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 6; i++)
      lines.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(97 + i)}`)
          .join(', ')}]`,
      );
    const r = parseManifests(`${lines.join('\n')}\n`, 'bomb.yaml', 'yaml');
    assert.equal(r.ok, false);
  });
});
