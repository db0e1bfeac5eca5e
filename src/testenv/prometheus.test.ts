import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prometheusConfig, sampleValue } from './prometheus.ts';

test('prometheusConfig scrapes every target at the interval, and evaluates as often', () => {
  assert.deepEqual(JSON.parse(prometheusConfig(['127.0.0.1:1', '127.0.0.1:2'], 1000)), {
    global: { scrape_interval: '1000ms', scrape_timeout: '1000ms', evaluation_interval: '1000ms' },
    scrape_configs: [{ job_name: 'traffic', static_configs: [{ targets: ['127.0.0.1:1', '127.0.0.1:2'] }] }],
  });
});

test('sampleValue reads the values Prometheus writes', () => {
  const cases: readonly [string, number][] = [
    ['0.2', 0.2],
    ['0', 0],
    ['1e-3', 0.001],
    ['+Inf', Number.POSITIVE_INFINITY],
    ['-Inf', Number.NEGATIVE_INFINITY],
  ];
  for (const [text, want] of cases) assert.equal(sampleValue(text), want, text);
  assert.ok(Number.isNaN(sampleValue('NaN')));
});
