// Table tests of the doc-block extractor: fences, indented fences, directives and their mistakes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractBlocks, parseDirective } from './doc-blocks.ts';

test('parseDirective', () => {
  assert.deepEqual(parseDirective('skip reason=needs Docker'), { kind: 'skip', reason: 'needs Docker' });
  assert.deepEqual(parseDirective('skip reason="quoted why"'), { kind: 'skip', reason: 'quoted why' });
  assert.deepEqual(parseDirective('fragment kind=Release'), { kind: 'fragment', of: 'Release' });
  assert.deepEqual(parseDirective('dev'), { kind: 'dev' });
  assert.deepEqual(parseDirective('api'), { kind: 'api' });
  for (const bad of ['skip', 'skip reason=', 'fragment', 'dev now', 'api x', 'ignore']) {
    assert.ok('problem' in parseDirective(bad), bad);
  }
});

test('extractBlocks: lines, languages, indents, directives', () => {
  const md = [
    '# T', // 1
    '```sh', // 2
    'echo a', // 3
    '```', // 4
    '<!-- doc-test: skip reason=needs Docker -->', // 5
    '```sh', // 6
    'docker ps', // 7
    '```', // 8
    '1. step', // 9
    '', // 10
    '   ```yaml', // 11
    '   a: 1', // 12
    '   ```', // 13
    '````text', // 14
    '```', // 15
    '````', // 16
    '```', // 17
    'bare', // 18
    '```', // 19
  ].join('\n');
  const { blocks, problems } = extractBlocks('x.md', md);
  assert.deepEqual(problems, []);
  assert.deepEqual(
    blocks.map((b) => [b.line, b.lang, b.text, b.directive.kind]),
    [
      [2, 'sh', 'echo a\n', 'run'],
      [6, 'sh', 'docker ps\n', 'skip'],
      [11, 'yaml', 'a: 1\n', 'run'],
      [14, 'text', '```\n', 'run'],
      [17, '', 'bare\n', 'run'],
    ],
  );
});

test('extractBlocks: a directive must stand right before a block, and parse', () => {
  const stray = extractBlocks('x.md', '<!-- doc-test: dev -->\nsome prose\n```sh\nls\n```\n');
  assert.match(
    stray.problems[0] ?? '',
    /^x\.md:1: a doc-test comment must stand right before a fenced block/,
  );
  assert.equal(stray.blocks[0]?.directive.kind, 'run');
  const bad = extractBlocks('x.md', '<!-- doc-test: skip -->\n```sh\nls\n```\n');
  assert.match(bad.problems[0] ?? '', /^x\.md:1: doc-test: skip needs reason/);
  const last = extractBlocks('x.md', 'text\n<!-- doc-test: dev -->\n');
  assert.equal(last.problems.length, 1);
});
