import assert from 'node:assert/strict';
import { test } from 'node:test';
import { age, colourEnabled, duration, paint, shortRef, table, visibleLength } from './format.ts';

test('duration follows kubectl HumanDuration', () => {
  const s = 1000;
  const cases: [number, string][] = [
    [0, '0s'],
    [59 * s, '59s'],
    [119 * s, '119s'],
    [120 * s, '2m'],
    [190 * s, '3m10s'],
    [10 * 60 * s, '10m'],
    [179 * 60 * s, '179m'],
    [3 * 3600 * s, '3h'],
    [(5 * 3600 + 3 * 60) * s, '5h3m'],
    [8 * 3600 * s, '8h'],
    [47 * 3600 * s, '47h'],
    [2 * 86400 * s, '2d'],
    [(3 * 86400 + 4 * 3600) * s, '3d4h'],
    [400 * 86400 * s, '400d'],
    [(3 * 365 + 12) * 86400 * s, '3y12d'],
    [9 * 365 * 86400 * s, '9y'],
  ];
  for (const [ms, want] of cases) assert.equal(duration(ms), want, `${ms} ms`);
});

test('age from a timestamp; future and missing times', () => {
  const now = new Date('2030-01-01T00:10:00Z');
  assert.equal(age('2030-01-01T00:05:00Z', now), '5m');
  assert.equal(age('2029-12-30T00:10:00Z', now), '2d');
  assert.equal(age('2030-01-01T00:11:00Z', now), '0s');
  assert.equal(age(undefined, now), '<unknown>');
  assert.equal(age('not a time', now), '<invalid>');
});

test('table pads every column but the last, ignoring colour escapes', () => {
  const red = paint('red', 'False', true);
  assert.deepEqual(
    table([
      ['NAME', 'HEALTHY', 'AGE'],
      ['web', red, '5m'],
      ['a-long-name', 'True', '2d'],
    ]),
    ['NAME          HEALTHY   AGE', `web           ${red}     5m`, 'a-long-name   True      2d'],
  );
  assert.equal(visibleLength(red), 5);
});

test('shortRef keeps sha256: and 12 hex digits', () => {
  assert.equal(shortRef(`sha256:${'ab'.repeat(32)}`), 'sha256:abababababab');
  assert.equal(shortRef(undefined), '-');
  assert.equal(shortRef('other'), 'other');
});

test('colour only on a TTY without NO_COLOR or TERM=dumb', () => {
  const cases: [boolean | undefined, Record<string, string>, boolean][] = [
    [true, {}, true],
    [false, {}, false],
    [undefined, {}, false],
    [true, { NO_COLOR: '1' }, false],
    [true, { NO_COLOR: '' }, true],
    [true, { TERM: 'dumb' }, false],
  ];
  for (const [tty, env, want] of cases)
    assert.equal(colourEnabled(tty, env), want, JSON.stringify({ tty, env }));
  assert.equal(paint('green', 'ok', false), 'ok');
  assert.equal(paint('green', 'ok', true), '\x1b[32mok\x1b[0m');
});
