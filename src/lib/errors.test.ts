// Table test of errorMessage: every kind of thrown value gives its text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertNever } from './assert-never.ts';
import { errorMessage } from './errors.ts';

test('errorMessage gives the text of whatever was thrown', () => {
  const rows: [unknown, string][] = [
    [new Error('boom'), 'boom'],
    [new TypeError('bad type'), 'bad type'],
    [{ code: 404, message: 'not found' }, 'not found'],
    ['a string', 'a string'],
    [42, '42'],
    [undefined, 'undefined'],
    [null, 'null'],
    [{ message: 7 }, '[object Object]'],
  ];
  for (const [thrown, text] of rows) assert.equal(errorMessage(thrown), text, String(thrown));
});

test('assertNever throws naming the value', () => {
  assert.throws(() => assertNever('x' as never), /unexpected value: "x"/);
});
