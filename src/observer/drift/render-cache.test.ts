// RenderCache: bounded by the objects it holds, least recently used evicted first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Render } from '../../render/types.ts';
import { RenderCache } from './render-cache.ts';

const render = (objects: number, hooks = 0): Render => ({
  objects: Array.from({ length: objects }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `o${i}` },
  })),
  hooks: Array.from({ length: hooks }, (_, i) => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: `h${i}` },
  })),
});

test('RenderCache: keeps renders up to the object bound, evicting the least recently used', () => {
  const c = new RenderCache(10);
  const a = render(4);
  c.set('a', a);
  c.set('b', render(3, 1));
  assert.equal(c.objects, 8);
  assert.equal(c.get('a'), a); // a is now the most recently used
  c.set('c', render(3)); // 11 > 10: b goes, not a
  assert.equal(c.get('b'), undefined);
  assert.equal(c.get('a'), a);
  assert.equal(c.size, 2);
  assert.equal(c.objects, 7);
});

test('RenderCache: a render larger than the bound is kept alone; an empty render still counts', () => {
  const c = new RenderCache(5);
  c.set('small', render(2));
  const big = render(9);
  c.set('big', big);
  assert.equal(c.get('big'), big);
  assert.equal(c.get('small'), undefined);
  assert.equal(c.objects, 9);
  const e = new RenderCache(2);
  e.set('x', render(0));
  e.set('y', render(0));
  e.set('z', render(0));
  assert.equal(e.size, 2);
});

test('RenderCache: setting a ref again replaces it without counting it twice', () => {
  const c = new RenderCache(10);
  c.set('a', render(4));
  c.set('a', render(4));
  assert.equal(c.objects, 4);
  assert.equal(c.size, 1);
});
