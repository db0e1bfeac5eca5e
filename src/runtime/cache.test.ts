// Tests of the indexed cache: keys, index maintenance on update and delete, read-only objects.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byNamespace, Cache, keyOf, splitKey } from './cache.ts';
import type { KubeObject } from './filters.ts';

const cm = (ns: string | undefined, name: string, cluster?: string): KubeObject => ({
  metadata: { name, ...(ns ? { namespace: ns } : {}), labels: cluster ? { cluster } : {} },
});

test('keys', () => {
  assert.equal(keyOf(cm('a', 'x')), 'a/x');
  assert.equal(keyOf(cm(undefined, 'x')), 'x');
  assert.deepEqual(splitKey('a/x'), { namespace: 'a', name: 'x' });
  assert.deepEqual(splitKey('x'), { namespace: undefined, name: 'x' });
});

test('indexes follow upserts and deletes', () => {
  const c = new Cache<KubeObject>();
  c.upsert(cm('a', 'r1', 'c1'));
  c.addIndex('ns', byNamespace); // added after data: indexes existing items
  c.addIndex('cluster', (o) => (o.metadata?.labels?.cluster ? [o.metadata.labels.cluster] : []));
  c.upsert(cm('a', 'r2', 'c1'));
  c.upsert(cm('b', 'r3', 'c2'));
  const names = (xs: KubeObject[]) => xs.map((o) => o.metadata?.name).sort();
  assert.deepEqual(names(c.byIndex('cluster', 'c1')), ['r1', 'r2']);
  assert.deepEqual(names(c.byIndex('ns', 'a')), ['r1', 'r2']);
  c.upsert(cm('a', 'r2', 'c2')); // moves between index values
  assert.deepEqual(names(c.byIndex('cluster', 'c1')), ['r1']);
  assert.deepEqual(names(c.byIndex('cluster', 'c2')), ['r2', 'r3']);
  c.delete('b/r3');
  assert.deepEqual(names(c.byIndex('cluster', 'c2')), ['r2']);
  assert.deepEqual(c.byIndex('cluster', 'nope'), []);
  assert.equal(c.size(), 2);
  assert.throws(() => c.byIndex('missing', 'x'));
  assert.throws(() => c.addIndex('ns', byNamespace));
});

test('cached objects are read-only', () => {
  const c = new Cache<KubeObject>();
  c.upsert(cm('a', 'r1', 'c1'));
  const o = c.get('a/r1') as { metadata: { labels: Record<string, string> } };
  assert.throws(() => {
    o.metadata.labels.cluster = 'x';
  }, TypeError);
});
