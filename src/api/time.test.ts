import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatTime } from './time.ts';

test('formatTime: whole seconds, UTC, from epoch milliseconds or a Date', () => {
  const rows: [number | Date, string][] = [
    [0, '1970-01-01T00:00:00Z'],
    [Date.parse('2030-01-01T00:00:00Z'), '2030-01-01T00:00:00Z'],
    [Date.parse('2030-01-01T00:00:00.999Z'), '2030-01-01T00:00:00Z'],
    [Date.parse('2030-01-01T00:00:01.5Z') + 0.7, '2030-01-01T00:00:01Z'],
    [new Date('2030-06-30T23:59:59.999+02:00'), '2030-06-30T21:59:59Z'],
  ];
  for (const [at, want] of rows) assert.equal(formatTime(at), want, String(at));
});
