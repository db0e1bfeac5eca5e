// The replay memory as a table: a key seen within the window is a replay, after it is not; released keys
// are forgotten; past max the oldest go first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Deliveries } from './deliveries.ts';

test('Deliveries: a key accepted within the window is a replay; expired, released or evicted it is not', () => {
  let t = 0;
  const d = new Deliveries({ windowMs: 1000, max: 3, now: () => t });
  assert.equal(d.replayed(['a', 'body:1']), false);
  assert.equal(d.replayed(['a']), true, 'same delivery id');
  assert.equal(d.replayed(['other', 'body:1']), true, 'same body, another id');
  assert.equal(d.replayed([]), false, 'nothing identifies it: never a replay');
  t = 999;
  assert.equal(d.replayed(['a']), true);
  t = 1000;
  assert.equal(d.replayed(['a']), false, 'the window has passed (and it is taken again)');
  d.release(['a']);
  assert.equal(d.replayed(['a']), false, 'released by a failed push');
  assert.equal(d.replayed(['b', 'c', 'e']), false);
  assert.equal(d.size, 3, 'bounded');
  assert.equal(d.replayed(['a']), false, 'the oldest went first');
});
