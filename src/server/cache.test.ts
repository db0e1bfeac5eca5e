import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TtlCache } from './cache.ts';

test('TtlCache: entries expire after the ttl', () => {
  let t = 1000;
  const c = new TtlCache<string>(10, 10, () => t);
  c.set('a', 'A');
  assert.equal(c.get('a'), 'A');
  t = 1009;
  assert.equal(c.get('a'), 'A');
  t = 1010;
  assert.equal(c.get('a'), undefined);
  assert.equal(c.size, 0);
});

test('TtlCache: bounded, the oldest entry goes first; a re-set entry counts as new', () => {
  const c = new TtlCache<number>(1000, 2, () => 0);
  c.set('a', 1);
  c.set('b', 2);
  c.set('a', 3);
  c.set('c', 4);
  assert.equal(c.get('b'), undefined);
  assert.equal(c.get('a'), 3);
  assert.equal(c.get('c'), 4);
  assert.equal(c.size, 2);
});

test('TtlCache: ttl 0 caches nothing', () => {
  const c = new TtlCache<number>(0);
  c.set('a', 1);
  assert.equal(c.get('a'), undefined);
});
