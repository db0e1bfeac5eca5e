// Table test of shortRevision: commits, digests, inline revisions and anything else.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shortRevision } from './revision.ts';

test('shortRevision', () => {
  const sha = 'ce61177f6ea0d6b1a1b3c8e8a0f2f7c0a9b8c7d6';
  const cases: readonly (readonly [string, string])[] = [
    [sha, 'ce61177f6ea0'],
    [`${sha}${'a'.repeat(24)}`, 'ce61177f6ea0'],
    [`sha256:${'b'.repeat(64)}`, 'sha256:bbbbbbbbbbbb'],
    ['inline:0123456789ab', 'inline:0123456789ab'],
    ['v1.2.3', 'v1.2.3'],
    [`1.4.2@sha256:${'c'.repeat(64)}`, '1.4.2@sha256:cccccccccccc'],
    ['x'.repeat(80), `${'x'.repeat(63)}…`],
    ['', ''],
  ];
  for (const [input, want] of cases) assert.equal(shortRevision(input), want, input);
});
