// Table test of convoy-controller-manager's flags and environment variables.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseManagerOptions } from './options.ts';

test('defaults, environment, and flags that win over the environment', () => {
  const d = parseManagerOptions([], {});
  assert.equal(d.shardCount, 1);
  assert.equal(d.shardIndex, undefined);
  assert.equal(d.concurrency, 4);
  assert.equal(d.metricsPort, 8080);
  assert.equal(d.allowFileUrls, false);
  const e = parseManagerOptions(['--concurrency', '8', '--shard-index=1', '--allow-file-urls'], {
    KUBECONFIG: '/k',
    CONVOY_CONCURRENCY: '2',
    CONVOY_SHARD_COUNT: '3',
    CONVOY_METRICS_PORT: '0',
    CONVOY_TEST_CRASH_AFTER_WAVE_APPLY: '1',
  });
  assert.equal(e.kubeconfig, '/k');
  assert.equal(e.concurrency, 8);
  assert.equal(e.shardCount, 3);
  assert.equal(e.shardIndex, 1);
  assert.equal(e.metricsPort, 0);
  assert.equal(e.allowFileUrls, true);
  assert.equal(e.crashAfterWave, 1);
});

test('bad input is rejected with the flag named', () => {
  const rows: ReadonlyArray<[string[], RegExp]> = [
    [['--shard-count', '0'], /shard-count/],
    [['--shard-index', '2', '--shard-count', '2'], /shard-index 2 must be below/],
    [['--concurrency', 'x'], /concurrency/],
    [['--nope'], /unknown flag --nope/],
    [['--kubeconfig'], /needs a value/],
    [['stray'], /unexpected argument/],
  ];
  for (const [argv, re] of rows) assert.throws(() => parseManagerOptions(argv, {}), re, argv.join(' '));
});
