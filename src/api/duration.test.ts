// Table test of the Go duration parser and of the CRD pattern that must accept the same strings.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DURATION_PATTERN, DurationError, parseDuration } from './duration.ts';

const valid: ReadonlyArray<readonly [string, number]> = [
  ['0', 0],
  ['0s', 0],
  ['1s', 1000],
  ['5m', 300_000],
  ['1h', 3_600_000],
  ['1h30m', 5_400_000],
  ['2h45m10s', 9_910_000],
  ['300ms', 300],
  ['1.5s', 1500],
  ['1.5h', 5_400_000],
  ['1000000ns', 1],
  ['1500us', 1.5],
  ['1500µs', 1.5],
  ['1m0.5s', 60_500],
];

test('parseDuration: valid Go durations', () => {
  for (const [input, ms] of valid) {
    assert.equal(parseDuration(input), ms, input);
    assert.match(input, new RegExp(DURATION_PATTERN, 'u'), `pattern accepts ${input}`);
  }
});

test('parseDuration: Go syntax the CRD pattern does not allow still parses', () => {
  assert.equal(parseDuration('-1s'), -1000);
  assert.equal(parseDuration('+2m'), 120_000);
  assert.equal(parseDuration('.5s'), 500);
  assert.equal(parseDuration('1μs'), 0.001);
  for (const s of ['-1s', '.5s']) assert.doesNotMatch(s, new RegExp(DURATION_PATTERN, 'u'), s);
});

test('parseDuration: rejects what Go rejects', () => {
  for (const input of ['', '1', '10', 's', '1d', '1 h', '1h ', 'h1', '1.h.', 'abc', '-', '1hm', '.s', '5M']) {
    assert.throws(() => parseDuration(input), DurationError, input);
    assert.doesNotMatch(input, new RegExp(DURATION_PATTERN, 'u'), `pattern rejects ${JSON.stringify(input)}`);
  }
});

test('parseDuration: the error names the input and the expected form', () => {
  assert.throws(() => parseDuration('3 days'), /invalid duration "3 days".*1h30m/);
});
