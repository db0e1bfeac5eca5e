import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJsonPath, selectJson } from './json-path.ts';

const answer = { data: { ok: true, successPercent: 0.95 }, items: [{ value: 3 }], 'a-b': 'x', n: null };

test('parseJsonPath and selectJson: the subset templates use', () => {
  const cases: [string, unknown][] = [
    ['{$.data.ok}', { found: true, value: true }],
    ['{$.data}', { found: true, value: { ok: true, successPercent: 0.95 } }],
    ['$.items[0].value', { found: true, value: 3 }],
    ["$['a-b']", { found: true, value: 'x' }],
    ['$["data"].successPercent', { found: true, value: 0.95 }],
    ['$', { found: true, value: answer }],
    ['$.n', { found: true, value: null }],
    ['$.items[1]', { found: false }],
    ['$.data.missing', { found: false }],
    ['$.items.value', { found: false }],
    ['$.constructor', { found: false }],
  ];
  for (const [path, want] of cases) {
    const p = parseJsonPath(path);
    assert.ok(p.ok, path);
    assert.deepEqual(selectJson(answer, p.steps), want, path);
  }
});

test('parseJsonPath: what is outside the subset is refused', () => {
  const cases: [string, string][] = [
    ['data.ok', 'jsonPath "data.ok" must start with $'],
    ['$..ok', 'jsonPath "$..ok": "..ok" is not supported (fields, [n] and [\'name\'] only)'],
    ['$.items[*]', 'jsonPath "$.items[*]": "[*]" is not supported (fields, [n] and [\'name\'] only)'],
    [
      '$.items[?(@.v>1)]',
      'jsonPath "$.items[?(@.v>1)]": "[?(@.v>1)]" is not supported (fields, [n] and [\'name\'] only)',
    ],
  ];
  for (const [path, want] of cases) assert.deepEqual(parseJsonPath(path), { ok: false, message: want }, path);
});
