// bench:verification's pure parts: its command line (defaults, bad values named), the nearest-rank
// percentiles it prints, the lag from a soak's end to Succeeded, and the query its counting proxy reads.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { instantQueryText } from './prom-proxy.ts';
import { percentile, spread } from './stats.ts';
import { parseVerificationArgs, soakEndLagMs } from './verification-args.ts';

test('parseVerificationArgs: defaults, each flag, and a bad value named with the usage', () => {
  assert.deepEqual(parseVerificationArgs([]), {
    releases: 1000,
    soakSeconds: 120,
    intervalSeconds: 30,
    initialDelaySeconds: 0,
    idleSeconds: 60,
    perReleaseQuery: false,
  });
  assert.deepEqual(
    parseVerificationArgs([
      '--releases',
      '200',
      '--soak',
      '60',
      '--interval',
      '15',
      '--initial-delay',
      '5',
      '--idle',
      '30',
      '--per-release-query',
    ]),
    {
      releases: 200,
      soakSeconds: 60,
      intervalSeconds: 15,
      initialDelaySeconds: 5,
      idleSeconds: 30,
      perReleaseQuery: true,
    },
  );
  const cases: [string[], RegExp][] = [
    [['--releases', '0'], /--releases: want a whole number ≥ 1, got "0"/],
    [['--releases', '1e3'], /--releases: want a whole number ≥ 1, got "1e3"/],
    [['--soak', '60s'], /--soak: want a whole number ≥ 1, got "60s"/],
    [['--soak', '10', '--interval', '30'], /--interval 30 is longer than --soak 10/],
    [['--release', '5'], /Unknown option '--release'/],
    [['extra'], /positional/],
  ];
  for (const [argv, message] of cases) {
    assert.throws(() => parseVerificationArgs(argv), message, argv.join(' '));
    assert.throws(() => parseVerificationArgs(argv), /usage: npm run bench:verification/, argv.join(' '));
  }
});

test('percentile: nearest rank, whatever the order; spread: p50, p95, max and n', () => {
  const xs = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
  assert.equal(percentile(xs, 0.5), 5);
  assert.equal(percentile(xs, 0.95), 10);
  assert.equal(percentile(xs, 0.1), 1);
  assert.equal(percentile([7], 0.95), 7);
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
  assert.deepEqual(spread(hundred), { n: 100, p50: 50, p95: 95, max: 100 });
  assert.ok(Number.isNaN(percentile([], 0.5)));
  assert.equal(spread([]).n, 0);
  assert.throws(() => percentile(xs, 0), /p must be in \(0, 1\]/);
  assert.throws(() => percentile(xs, 95), /p must be in \(0, 1\]/);
});

test('soakEndLagMs: Succeeded minus startedAt + initialDelay + soak, negative when early; a bad time named', () => {
  const start = '2026-12-06T11:00:00.250Z';
  const end = Date.parse(start) + 5_000 + 60_000;
  assert.equal(soakEndLagMs(start, 5_000, 60_000, end + 420), 420);
  assert.equal(soakEndLagMs(start, 0, 60_000, end), 5_000);
  assert.equal(soakEndLagMs(start, 5_000, 60_000, end - 250), -250);
  assert.throws(() => soakEndLagMs('soon', 0, 1, 0), /verification.startedAt "soon" is not a time/);
});

test('instantQueryText: the query of /api/v1/query from its URL or form body; other paths are not counted', () => {
  const q = 'sum(rate(x{code="500"}[1m])) / 2';
  assert.equal(instantQueryText('/api/v1/query', new URLSearchParams({ query: q }).toString()), q);
  assert.equal(instantQueryText(`/api/v1/query?${new URLSearchParams({ query: q })}`, ''), q);
  assert.equal(instantQueryText('/api/v1/query', ''), '');
  assert.equal(instantQueryText('/api/v1/query_range', `query=${q}`), undefined);
  assert.equal(instantQueryText('/-/ready', ''), undefined);
});
