// Tests of the worker pool: bound on concurrency, one key never worked twice at once, result handling.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from './clock.ts';
import { WorkQueue } from './queue.ts';
import { type ReconcileResult, settle, WorkerPool } from './workers.ts';

test('settle maps each result to the queue action', () => {
  const cases: Array<[ReconcileResult, number, number]> = [
    // result, requeues after, ms until the key is ready again (-1: never)
    [{ kind: 'done' }, 0, -1],
    [{ kind: 'requeueAfter', ms: 30 }, 0, 30],
    [{ kind: 'error', error: new Error('x') }, 2, 10],
  ];
  for (const [result, requeues, readyAfter] of cases) {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock, baseDelayMs: 5 });
    q.addRateLimited('ns/k'); // one earlier failure
    clock.advance(5);
    assert.equal(q.tryGet(), 'ns/k');
    settle(q, 'ns/k', result);
    q.done('ns/k');
    assert.equal(q.numRequeues('ns/k'), requeues, result.kind);
    if (readyAfter < 0) {
      clock.advance(10_000);
      assert.equal(q.tryGet(), undefined, result.kind);
    } else {
      clock.advance(readyAfter - 1);
      assert.equal(q.tryGet(), undefined, result.kind);
      clock.advance(1);
      assert.equal(q.tryGet(), 'ns/k', result.kind);
    }
  }
});

test('pool runs at most N reconciles at once and never one key twice at once', async () => {
  const q = new WorkQueue();
  let active = 0;
  let maxActive = 0;
  const activeKeys = new Set<string>();
  const seen: string[] = [];
  const releases: Array<() => void> = [];
  const pool = new WorkerPool(
    q,
    async (key) => {
      assert.ok(!activeKeys.has(key), `${key} worked twice at once`);
      activeKeys.add(key);
      active++;
      maxActive = Math.max(maxActive, active);
      seen.push(key);
      await new Promise<void>((r) => releases.push(r));
      active--;
      activeKeys.delete(key);
      return { kind: 'done' };
    },
    3,
  );
  pool.start();
  for (const k of ['a/1', 'a/2', 'a/3', 'a/4', 'a/5']) q.add(k);
  await new Promise((r) => setImmediate(r));
  assert.equal(active, 3);
  q.add('a/1'); // while a/1 is in flight: must wait for it
  for (let i = 0; i < 20 && (releases.length > 0 || q.len() > 0 || active > 0); i++) {
    for (const r of releases.splice(0)) r();
    await new Promise((r) => setImmediate(r));
  }
  assert.equal(maxActive, 3);
  assert.deepEqual(seen.sort(), ['a/1', 'a/1', 'a/2', 'a/3', 'a/4', 'a/5']);
  await q.shutDownWithDrain();
  await pool.stopped();
});

test('a throwing reconcile is retried with backoff like an error', async () => {
  const q = new WorkQueue({ baseDelayMs: 1, maxDelayMs: 2 });
  let calls = 0;
  const results: string[] = [];
  const pool = new WorkerPool(
    q,
    async () => {
      calls++;
      if (calls < 3) throw new Error('boom');
      return { kind: 'done' };
    },
    1,
    { onResult: (_k, r) => results.push(r.kind) },
  );
  pool.start();
  q.add('ns/k');
  const deadline = Date.now() + 5000;
  while (results.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
  assert.deepEqual(results, ['error', 'error', 'done']);
  assert.equal(q.numRequeues('ns/k'), 0);
  q.shutDown();
  await pool.stopped();
});

test('workers let timers run between reconciles that await no I/O', async () => {
  const q = new WorkQueue();
  const keys = Array.from({ length: 200 }, (_, i) => `a/${i}`);
  let finished = 0;
  let allDone = () => {};
  const passOver = new Promise<void>((resolve) => {
    allDone = resolve;
  });
  const pool = new WorkerPool(
    q,
    async () => {
      // Work that awaits nothing: a pass that finds every object up to date, from caches.
      const until = performance.now() + 0.2;
      while (performance.now() < until);
      if (++finished === keys.length) allDone();
      return { kind: 'done' };
    },
    4,
  );
  for (const k of keys) q.add(k);
  // A timer due at once (a Lease renewal, a /healthz answer) runs long before the pass ends.
  const timerSaw = new Promise<number>((resolve) => setTimeout(() => resolve(finished), 0));
  pool.start();
  assert.ok((await timerSaw) < keys.length / 2, 'the timer waited for the whole pass');
  await passOver;
  await q.shutDownWithDrain();
  await pool.stopped();
});
