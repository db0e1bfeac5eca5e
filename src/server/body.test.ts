import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSyncBody } from './body.ts';

const good: [string, { force: boolean; approve: boolean }][] = [
  ['', { force: false, approve: false }],
  ['  \n', { force: false, approve: false }],
  ['{}', { force: false, approve: false }],
  ['{"force": true}', { force: true, approve: false }],
  ['{"approve": true, "force": false}', { force: false, approve: true }],
  ['{"approve": true, "force": true}', { force: true, approve: true }],
];

for (const [text, want] of good) {
  test(`parseSyncBody accepts ${JSON.stringify(text)}`, () => {
    assert.deepEqual(parseSyncBody(text), { ok: true, value: want });
  });
}

const bad: { text: string; message: RegExp; fields: string[] }[] = [
  { text: '{', message: /not valid JSON/, fields: [] },
  { text: '[]', message: /must be a JSON object .*got array/, fields: [] },
  { text: 'null', message: /got null/, fields: [] },
  { text: '"force"', message: /got string/, fields: [] },
  { text: '{"force": "yes"}', message: /field "force" must be a boolean, got string/, fields: ['force'] },
  { text: '{"approve": 1}', message: /field "approve" must be a boolean, got number/, fields: ['approve'] },
  { text: '{"approve": null}', message: /got null/, fields: ['approve'] },
  {
    text: '{"aprove": true}',
    message: /unknown field "aprove" \(known: force, approve\)/,
    fields: ['aprove'],
  },
  {
    text: '{"force": 0, "dryRun": true}',
    message: /unknown field "dryRun".*"force" must be a boolean/,
    fields: ['dryRun', 'force'],
  },
];

for (const c of bad) {
  test(`parseSyncBody rejects ${c.text} naming ${c.fields.join(', ') || 'the body'}`, () => {
    const r = parseSyncBody(c.text);
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.error.code, 400);
    assert.match(r.error.message, c.message);
    assert.deepEqual(
      (r.error.causes ?? []).map((x) => x.field),
      c.fields,
    );
  });
}
