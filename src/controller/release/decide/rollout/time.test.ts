// Tests of the time and duration formatting used in status and messages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { elapsedSince, formatDuration } from './time.ts';

test('elapsedSince', () => {
  const t = Date.UTC(2025, 0, 1);
  const rows: [string | undefined, number, number | undefined][] = [
    [undefined, t, undefined],
    ['not a time', t, undefined],
    ['2025-01-01T00:00:00Z', t + 90_000, 90_000],
    ['2025-01-01T00:01:00Z', t, -60_000],
  ];
  for (const [at, now, want] of rows) assert.equal(elapsedSince(at, now), want, String(at));
});

test('formatDuration', () => {
  const rows: [number, string][] = [
    [0, '0s'],
    [999, '0s'],
    [45_000, '45s'],
    [150_000, '2m30s'],
    [600_000, '10m0s'],
    [3_605_000, '1h0m5s'],
    [-2_000, '-2s'],
  ];
  for (const [ms, want] of rows) assert.equal(formatDuration(ms), want, String(ms));
});
