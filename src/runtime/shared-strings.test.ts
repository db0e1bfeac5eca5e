// The shared string table: bounded in two generations, strings that come back stay, and a cache of
// parsed objects holds one copy of an equal string instead of one per object.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Cache } from './cache.ts';
import type { KubeObject } from './filters.ts';
import { freezeSharing, SHARED_STRING_MAX_LENGTH, StringTable } from './shared-strings.ts';

test('the table keeps two generations and what comes back', () => {
  const t = new StringTable(2);
  for (const s of ['a', 'b', 'a', 'c']) t.share(s); // young {a, b} turns old; c starts the young one
  assert.deepEqual([t.holds('a'), t.holds('b'), t.holds('c'), t.size()], [true, true, true, 3]);
  t.share('a'); // found in the old generation: moves to the young one
  t.share('d'); // the young one {c, a} is full: it turns old, {a, b} is dropped
  assert.deepEqual(
    ['a', 'b', 'c', 'd'].map((s) => t.holds(s)),
    [true, false, true, true],
  );
  assert.ok(t.size() <= 4);
});

test('long strings are left out of the table', () => {
  const t = new StringTable();
  const long = 'x'.repeat(SHARED_STRING_MAX_LENGTH + 1);
  assert.equal(t.share(long), long);
  assert.equal(t.holds(long), false);
  assert.equal(t.holds(t.share('x'.repeat(SHARED_STRING_MAX_LENGTH))), true);
});

test('freezeSharing freezes every level and keeps every value', () => {
  const o = JSON.parse('{"a":{"b":["x",{"c":"y"}],"n":1,"z":null},"s":"x"}') as Record<string, unknown>;
  const copy = structuredClone(o);
  freezeSharing(o, new StringTable());
  assert.deepEqual(o, copy);
  const inner = o.a as { b: [string, { c: string }] };
  for (const level of [o, o.a, inner.b, inner.b[1]]) assert.ok(Object.isFrozen(level));
});

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap bytes a cache of n parsed objects holds, each with the same 100-character message. */
function heapOfCache(n: number, strings: StringTable): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const cache = new Cache<KubeObject>(strings);
  const message = 'no rule for this kind; passes the generic status checks '.padEnd(100, '.');
  for (let i = 0; i < n; i++) {
    cache.upsert(
      JSON.parse(JSON.stringify({ metadata: { name: `o${i}` }, status: { message } })) as KubeObject,
    );
  }
  gc();
  const held = process.memoryUsage().heapUsed - before;
  assert.equal(cache.size(), n); // keeps the cache alive until measured
  return held;
}

test('a cache holds one copy of an equal string', () => {
  const n = 50_000;
  const unshared = heapOfCache(n, new StringTable(undefined, 0)); // shares no string
  const shared = heapOfCache(n, new StringTable());
  // Each unshared copy of the message is ~116 bytes with its header; the table's own entries (a name
  // per object, up to two generations of them) take back part of that.
  assert.ok(unshared - shared > n * 50, `unshared ${unshared} B, shared ${shared} B`);
});
