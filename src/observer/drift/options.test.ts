import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDriftInterval } from './options.ts';

test('parseDriftInterval: unset is per Release, 0 is off, else a duration of at least 1s', () => {
  const cases: [string | undefined, unknown][] = [
    [undefined, { kind: 'perRelease' }],
    ['', { kind: 'perRelease' }],
    ['0', { kind: 'off' }],
    ['30s', { kind: 'fixed', ms: 30_000 }],
    ['2m', { kind: 'fixed', ms: 120_000 }],
    ['1s', { kind: 'fixed', ms: 1_000 }],
  ];
  for (const [value, want] of cases) assert.deepEqual(parseDriftInterval(value), want, String(value));
});

test('parseDriftInterval refuses what is not a usable duration', () => {
  for (const value of ['soon', '500ms', '-1m']) {
    const got = parseDriftInterval(value);
    assert.ok('error' in got, value);
  }
});
