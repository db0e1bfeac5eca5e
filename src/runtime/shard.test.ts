// Table tests for shard assignment; the hash values pin the documented FNV-1a 32 variant.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { controllerLeaseName, fnv1a32, observerLeaseName, shardOf } from './shard.ts';

test('fnv1a32 matches the reference vectors', () => {
  const cases: Array<[string, number]> = [
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968],
  ];
  for (const [s, want] of cases) assert.equal(fnv1a32(s), want, s);
});

test('shardOf', () => {
  const h = fnv1a32('team-a/prod');
  const cases: Array<[Parameters<typeof shardOf>[0], number, number]> = [
    [{ kind: 'cluster', namespace: 'team-a', name: 'prod', shard: 2 }, 4, 2],
    [{ kind: 'cluster', namespace: 'team-a', name: 'prod', shard: 6 }, 4, 2],
    [{ kind: 'cluster', namespace: 'team-a', name: 'prod' }, 4, h % 4],
    [{ kind: 'cluster', namespace: 'team-a', name: 'prod', shard: -1 }, 4, h % 4],
    [{ kind: 'cluster', namespace: 'team-a', name: 'prod' }, 1, 0],
    [{ kind: 'namespace', namespace: 'team-a' }, 3, fnv1a32('team-a') % 3],
  ];
  for (const [s, n, want] of cases) assert.equal(shardOf(s, n), want, JSON.stringify(s));
  assert.throws(() => shardOf({ kind: 'namespace', namespace: 'x' }, 0));
});

test('shardOf is in range and spreads keys', () => {
  fc.assert(
    fc.property(fc.string(), fc.string(), fc.integer({ min: 1, max: 64 }), (ns, name, n) => {
      const s = shardOf({ kind: 'cluster', namespace: ns, name }, n);
      return Number.isInteger(s) && s >= 0 && s < n;
    }),
  );
  const counts = [0, 0, 0, 0];
  for (let i = 0; i < 4000; i++) {
    const s = shardOf({ kind: 'cluster', namespace: 'ns', name: `c${i}` }, 4);
    counts[s] = (counts[s] ?? 0) + 1;
  }
  for (const c of counts) assert.ok(c > 800 && c < 1200, `uneven shards ${counts}`);
});

test('lease names', () => {
  assert.equal(controllerLeaseName(3), 'convoy-controller-shard-3');
  assert.equal(observerLeaseName(0), 'convoy-observer-shard-0');
});
