import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sameFields } from './same-fields.ts';

test('sameFields compares only the named fields, and undefined is never the same', () => {
  const b = { x: 1, y: 'a', z: true };
  const cases: [string, typeof b | undefined, (keyof typeof b)[], boolean][] = [
    ['all equal', { ...b }, ['x', 'y', 'z'], true],
    ['one differs', { ...b, y: 'b' }, ['x', 'y', 'z'], false],
    ['a differing field not named', { ...b, z: false }, ['x', 'y'], true],
    ['undefined', undefined, ['x'], false],
    ['no fields named', { ...b, x: 2 }, [], true],
  ];
  for (const [what, a, keys, want] of cases) assert.equal(sameFields(a, b, keys), want, what);
});
