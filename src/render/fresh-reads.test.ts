// FreshReads: one read of a key per poll window, a requested sync never answered by a read older than
// it, a read in flight joined only when it would answer, one caller's abort never failing another, no
// failure kept, and the bound.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FreshReads } from './fresh-reads.ts';
import type { FetchOptions } from './source.ts';

/** A FreshReads on a clock the test moves, and a read that counts itself and answers its number. */
function setup(maxEntries?: number) {
  let now = 1_000;
  let reads = 0;
  const pending: Array<{ resolve: (v: number) => void; reject: (e: Error) => void }> = [];
  const fr = new FreshReads<number>({ now: () => now, ...(maxEntries === undefined ? {} : { maxEntries }) });
  const read = () => {
    reads++;
    return Promise.resolve(reads);
  };
  const held = () => {
    reads++;
    return new Promise<number>((resolve, reject) => pending.push({ resolve, reject }));
  };
  return {
    fr,
    read,
    held,
    pending,
    reads: () => reads,
    advance: (ms: number) => {
      now += ms;
    },
    at: () => now,
  };
}

test('FreshReads: polls within the window share one read; a request after it reads again', async () => {
  const rows: ReadonlyArray<readonly [string, number, (at: number) => FetchOptions, number]> = [
    // name, ms between the two calls, the second call's options, reads in all
    ['a poll within the window', 30_000, () => ({ pollWindowMs: 60_000 }), 1],
    ['a poll past the window', 60_000, () => ({ pollWindowMs: 60_000 }), 2],
    ['a poll with no window asks every time', 1, () => ({}), 2],
    ['a request seen after the first read started', 5, (at) => ({ readAfter: at - 1 }), 2],
    ['a request seen before the first read started', 5, (at) => ({ readAfter: at - 10 }), 1],
  ];
  for (const [name, gap, second, want] of rows) {
    const s = setup();
    await s.fr.read('k', { pollWindowMs: 60_000 }, s.read);
    s.advance(gap);
    await s.fr.read('k', second(s.at()), s.read);
    assert.equal(s.reads(), want, name);
  }
});

test('FreshReads: a read in flight is joined only when it would answer', async () => {
  const s = setup();
  const first = s.fr.read('k', { pollWindowMs: 60_000 }, s.held);
  s.advance(10);
  const poll = s.fr.read('k', { pollWindowMs: 60_000 }, s.held);
  const request = s.fr.read('k', { readAfter: s.at() }, s.held);
  assert.equal(s.reads(), 2, 'the poll joined; the request, seen after the read started, did not');
  s.pending[0]?.resolve(1);
  s.pending[1]?.resolve(2);
  assert.deepEqual(await Promise.all([first, poll, request]), [1, 1, 2]);
  // The newer read's answer is the one kept.
  assert.equal(await s.fr.read('k', { pollWindowMs: 60_000 }, s.held), 2);
  assert.equal(s.reads(), 2);
});

test("FreshReads: one caller's abort stops its wait only; a failure is not kept", async () => {
  const s = setup();
  const ac = new AbortController();
  const gaveUp = s.fr.read('k', { pollWindowMs: 60_000 }, s.held, ac.signal);
  const waits = s.fr.read('k', { pollWindowMs: 60_000 }, s.held);
  ac.abort(new Error('superseded'));
  await assert.rejects(gaveUp, /superseded/);
  s.pending[0]?.reject(new Error('registry down'));
  await assert.rejects(waits, /registry down/);
  assert.equal(await s.fr.read('k', { pollWindowMs: 60_000 }, s.read), 2, 'read again after the failure');
  assert.equal(s.fr.size, 1);
});

test('FreshReads: at most maxEntries answers are kept, the oldest dropped', async () => {
  const s = setup(2);
  for (const k of ['a', 'b', 'c']) await s.fr.read(k, { pollWindowMs: 60_000 }, s.read);
  assert.equal(s.fr.size, 2);
  await s.fr.read('c', { pollWindowMs: 60_000 }, s.read);
  assert.equal(s.reads(), 3, 'c kept');
  await s.fr.read('a', { pollWindowMs: 60_000 }, s.read);
  assert.equal(s.reads(), 4, 'a dropped');
});
