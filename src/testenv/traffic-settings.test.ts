import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkTrafficSettings,
  DEFAULT_TRAFFIC,
  readTrafficSettings,
  type SettingsRead,
} from './traffic-settings.ts';

const ok = (errorRate: number, latencyMs: number): SettingsRead => ({
  kind: 'ok',
  settings: { errorRate, latencyMs },
});

const bad = (field: 'errorRate' | 'latencyMs', shown: string, max: number): SettingsRead => ({
  kind: 'invalid',
  field,
  message: `${field} ${shown} is not a number from 0 to ${max}`,
});

test('readTrafficSettings: a ConfigMap data table', () => {
  const cases: readonly [string, Record<string, string> | undefined, SettingsRead][] = [
    ['no ConfigMap: no errors', undefined, ok(0, DEFAULT_TRAFFIC.latencyMs)],
    ['empty data', {}, ok(0, DEFAULT_TRAFFIC.latencyMs)],
    ['both keys', { errorRate: '0.2', latencyMs: '150' }, ok(0.2, 150)],
    ['spaces around a value', { errorRate: ' 0.5\n' }, ok(0.5, DEFAULT_TRAFFIC.latencyMs)],
    ['the edges', { errorRate: '1', latencyMs: '0' }, ok(1, 0)],
    ['other keys are ignored', { other: 'x', errorRate: '0' }, ok(0, DEFAULT_TRAFFIC.latencyMs)],
    ['a word', { errorRate: 'high' }, bad('errorRate', '"high"', 1)],
    ['a percentage', { errorRate: '20' }, bad('errorRate', '"20"', 1)],
    ['empty', { errorRate: '' }, bad('errorRate', '""', 1)],
    ['negative latency', { latencyMs: '-1' }, bad('latencyMs', '"-1"', 60000)],
    ['Infinity', { latencyMs: 'Infinity' }, bad('latencyMs', '"Infinity"', 60000)],
    [
      'a long value is cut in the message',
      { latencyMs: 'x'.repeat(100) },
      bad('latencyMs', `"${'x'.repeat(40)}…"`, 60000),
    ],
  ];
  for (const [name, data, want] of cases) assert.deepEqual(readTrafficSettings(data), want, name);
});

test('checkTrafficSettings applies the same rules to in-process settings', () => {
  assert.deepEqual(checkTrafficSettings({ errorRate: 0.3, latencyMs: 5 }), ok(0.3, 5));
  assert.equal(checkTrafficSettings({ errorRate: Number.NaN, latencyMs: 5 }).kind, 'invalid');
  assert.equal(checkTrafficSettings({ errorRate: 0, latencyMs: 1e9 }).kind, 'invalid');
});
