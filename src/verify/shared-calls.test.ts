import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callKey, SharedCalls } from './shared-calls.ts';

test('SharedCalls: a call in flight is joined, a result reused until its time to live ends', async () => {
  let now = 0;
  const calls = new SharedCalls<number>({ now: () => now });
  let sent = 0;
  const call = async () => ++sent;
  const [a, b] = await Promise.all([calls.run('k', 1000, call), calls.run('k', 1000, call)]);
  assert.deepEqual([a, b, sent], [1, 1, 1], 'joined while in flight');
  now = 999;
  assert.equal(await calls.run('k', 1000, call), 1, 'reused within the interval');
  assert.equal(await calls.run('other', 1000, call), 2, 'another key is another call');
  now = 1000;
  assert.equal(await calls.run('k', 1000, call), 3, 'sent again once the interval passed');
});

test('SharedCalls: a slow answer is reused for its time to live from the send, not from the answer', async () => {
  let now = 0;
  const calls = new SharedCalls<number>({ now: () => now });
  let sent = 0;
  const slow = async () => {
    now += 2500; // the answer comes 2.5 s after the send
    return ++sent;
  };
  assert.equal(await calls.run('k', 1000, slow), 1);
  assert.equal(await calls.run('k', 1000, slow), 2, 'sent at 0 with 1 s to live: gone at 2.5 s');
});

test('SharedCalls: failures are not kept, and the entries are bounded', async () => {
  const calls = new SharedCalls<number>({ maxEntries: 3, now: () => 0 });
  await assert.rejects(
    calls.run('k', 1000, () => Promise.reject(new Error('down'))),
    /down/,
  );
  assert.equal(await calls.run('k', 1000, async () => 7), 7, 'a failed call is tried again');
  for (let i = 0; i < 10; i++) await calls.run(`k${i}`, 1000, async () => i);
  assert.equal(calls.size, 3);
  assert.equal(await calls.run('k9', 1000, async () => -1), 9, 'the newest are kept');
});

test('callKey: same parts same key, credentials hashed', () => {
  assert.equal(callKey(['http://p', 'up', 'tok']), callKey(['http://p', 'up', 'tok']));
  assert.notEqual(callKey(['http://p', 'up', 'tok']), callKey(['http://p', 'up', 'other']));
  assert.ok(!callKey(['tok3n']).includes('tok3n'));
});
