// Table tests for jitter and exponential backoff.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exponentialBackoff, jittered } from './jitter.ts';

test('jittered adds 0..fraction of the delay', () => {
  const cases: Array<[number, number, number, number]> = [
    [1000, 0.2, 0, 1000],
    [1000, 0.2, 0.5, 1100],
    [1000, 0.2, 0.999, 1199.8],
    [1000, 0, 0.7, 1000],
    [0, 0.2, 0.7, 0],
    [-5, 0.2, 0.7, 0],
  ];
  for (const [ms, f, r, want] of cases) {
    assert.ok(Math.abs(jittered(ms, f, () => r) - want) < 1e-9, `${ms},${f},${r}`);
  }
});

test('exponentialBackoff doubles from base and stops at the cap', () => {
  const cases: Array<[number, number]> = [
    [0, 0],
    [1, 5],
    [2, 10],
    [3, 20],
    [8, 640],
    [9, 1000],
    [2000, 1000],
  ];
  for (const [n, want] of cases) assert.equal(exponentialBackoff(n, 5, 1000), want, `n=${n}`);
});
