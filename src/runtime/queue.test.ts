// Property tests (fast-check) for the work queue against a small reference model, on a fake
// clock: dedup, never two holders of one key, delayed adds, per-key backoff and its reset, and the two
// lanes (a change before routine work, routine work never starved).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { FakeClock } from './clock.ts';
import { FINISH_SHARE, type Priority, ROUTINE_SHARE, WorkQueue } from './queue.ts';

type Op =
  | { kind: 'add'; key: string; priority: Priority }
  | { kind: 'addAfter'; key: string; ms: number; priority: Priority }
  | { kind: 'get' }
  | { kind: 'done'; pick: number }
  | { kind: 'advance'; ms: number };

const keyArb = fc.constantFrom('a/1', 'a/2', 'b/1', 'b/2');
const priorityArb = fc.constantFrom<Priority>('finish', 'change', 'routine');
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), key: keyArb, priority: priorityArb }),
  fc.record({
    kind: fc.constant('addAfter' as const),
    key: keyArb,
    ms: fc.integer({ min: 0, max: 50 }),
    priority: priorityArb,
  }),
  fc.record({ kind: fc.constant('get' as const) }),
  fc.record({ kind: fc.constant('done' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 30 }) }),
);

/**
 * The reference: per key, whether a hand-out is owed (wanted) and the earliest pending delayed
 * add. A key may be handed out only when wanted and not held; every owed key must come out.
 */
class Model {
  now = 0;
  wanted = new Set<string>();
  held = new Set<string>();
  delayed = new Map<string, number>();

  fire(): void {
    for (const [k, at] of this.delayed) {
      if (at <= this.now) {
        this.wanted.add(k);
        this.delayed.delete(k);
      }
    }
  }
  eligible(): string[] {
    return [...this.wanted].filter((k) => !this.held.has(k));
  }
}

test('queue: dedup, no concurrent key, delays honoured, nothing lost', () => {
  fc.assert(
    fc.property(fc.array(opArb, { maxLength: 80 }), (ops) => {
      const clock = new FakeClock();
      const q = new WorkQueue({ clock });
      const m = new Model();
      for (const op of ops) {
        switch (op.kind) {
          case 'add':
            q.add(op.key, op.priority);
            m.wanted.add(op.key);
            break;
          case 'addAfter':
            q.addAfter(op.key, op.ms, 0, op.priority);
            if (op.ms <= 0) m.wanted.add(op.key);
            else m.delayed.set(op.key, Math.min(m.delayed.get(op.key) ?? Infinity, m.now + op.ms));
            break;
          case 'get': {
            const got = q.tryGet();
            const eligible = m.eligible();
            if (got === undefined) {
              assert.deepEqual(eligible, [], 'queue returned nothing while a key was owed');
            } else {
              assert.ok(!m.held.has(got), `key ${got} handed out while held`);
              assert.ok(m.wanted.has(got), `key ${got} handed out but not owed (dup or early delay)`);
              m.wanted.delete(got);
              m.held.add(got);
            }
            break;
          }
          case 'done': {
            const held = [...m.held];
            if (held.length === 0) break;
            const k = held[op.pick % held.length] as string;
            q.done(k);
            m.held.delete(k);
            break;
          }
          case 'advance':
            clock.advance(op.ms);
            m.now += op.ms;
            m.fire();
            break;
        }
        // Each ready key is queued once: depth never exceeds the owed, unheld keys.
        assert.equal(q.len(), m.eligible().length, 'queue depth differs from owed keys');
      }
      // Drain: finish all work, let every delay fire; exactly the owed keys come out, once each.
      for (const k of m.held) q.done(k);
      m.held.clear();
      clock.advance(1000);
      m.now += 1000;
      m.fire();
      const drained: string[] = [];
      for (let k = q.tryGet(); k !== undefined; k = q.tryGet()) {
        drained.push(k);
        q.done(k);
      }
      assert.deepEqual(drained.sort(), [...m.wanted].sort());
    }),
    { numRuns: 500 },
  );
});

test('queue: a delayed key is not handed out before its time', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }), (delay, step) => {
      const clock = new FakeClock(1_000);
      const q = new WorkQueue({ clock });
      q.addAfter('ns/k', delay);
      clock.advance(Math.min(step, delay - 1));
      assert.equal(q.tryGet(), undefined);
      clock.advance(delay);
      assert.equal(q.tryGet(), 'ns/k');
    }),
  );
});

test('queue: jittered delay stays within [ms, ms*(1+fraction)]', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 10_000 }),
      fc.double({ min: 0, max: 0.999, noNaN: true }),
      (ms, r) => {
        const clock = new FakeClock();
        const q = new WorkQueue({ clock, random: () => r });
        q.addAfter('ns/k', ms, 0.2);
        const expected = ms + ms * 0.2 * r;
        clock.advance(Math.ceil(expected) - 1);
        if (Math.ceil(expected) - 1 < expected) assert.equal(q.tryGet(), undefined);
        clock.advance(1);
        assert.equal(q.tryGet(), 'ns/k');
      },
    ),
  );
});

test('queue: error backoff doubles per failure up to the cap; forget resets; plain requeue does not back off', () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom('fail', 'forget', 'requeue'), { minLength: 1, maxLength: 30 }),
      fc.integer({ min: 1, max: 50 }),
      fc.integer({ min: 50, max: 5000 }),
      (steps, base, cap) => {
        const clock = new FakeClock();
        const q = new WorkQueue({ clock, baseDelayMs: base, maxDelayMs: cap });
        let failures = 0;
        for (const s of steps) {
          let expected: number;
          if (s === 'fail') {
            failures++;
            expected = Math.min(cap, base * 2 ** (failures - 1));
            q.addRateLimited('ns/k');
          } else if (s === 'forget') {
            failures = 0;
            q.forget('ns/k');
            q.addAfter('ns/k', 7);
            expected = 7;
          } else {
            q.addAfter('ns/k', 7);
            expected = 7;
          }
          assert.equal(q.numRequeues('ns/k'), failures);
          clock.advance(expected - 1);
          assert.equal(q.tryGet(), undefined, `${s}: early at ${expected - 1}`);
          clock.advance(1);
          assert.equal(q.tryGet(), 'ns/k', `${s}: not ready at ${expected}`);
          q.done('ns/k');
        }
      },
    ),
  );
});

test('queue: backoff of one key does not slow another', () => {
  const clock = new FakeClock();
  const q = new WorkQueue({ clock, baseDelayMs: 10, maxDelayMs: 1000 });
  q.add('ns/bad');
  for (let i = 1; i <= 4; i++) {
    clock.advance(10 * 2 ** (i - 2));
    assert.equal(q.tryGet(), 'ns/bad');
    q.done('ns/bad');
    q.addRateLimited('ns/bad');
  }
  // ns/bad now waits 80 ms; a first failure of ns/good waits only the base 10 ms.
  q.addRateLimited('ns/good');
  clock.advance(10);
  assert.equal(q.tryGet(), 'ns/good');
  assert.equal(q.tryGet(), undefined);
  clock.advance(70);
  assert.equal(q.tryGet(), 'ns/bad');
});

test('queue: get waits for a key and shutdown releases waiters; drain waits for in-flight work', async () => {
  const q = new WorkQueue();
  const waiting = q.get();
  q.add('ns/x');
  assert.equal(await waiting, 'ns/x');
  const idle = q.get();
  let drained = false;
  const drain = q.shutDownWithDrain().then(() => {
    drained = true;
  });
  assert.equal(await idle, undefined);
  await Promise.resolve();
  assert.equal(drained, false, 'drain finished while ns/x was still processing');
  q.add('ns/y');
  assert.equal(q.len(), 0, 'adds are refused after shutdown');
  q.done('ns/x');
  await drain;
  assert.equal(drained, true);
});

test('queue: isQueued is true from add until hand-out, and again when added during the pass', () => {
  const clock = new FakeClock();
  const q = new WorkQueue({ clock });
  assert.equal(q.isQueued('a'), false);
  q.addAfter('a', 10);
  assert.equal(q.isQueued('a'), false, 'a delayed add is not queued yet');
  clock.advance(10);
  assert.equal(q.isQueued('a'), true);
  assert.equal(q.tryGet(), 'a');
  assert.equal(q.isQueued('a'), false, 'handed out: processing, not queued');
  assert.equal(q.isProcessing('a'), true);
  q.add('a');
  assert.equal(q.isQueued('a'), true, 'added again while processing');
  q.done('a');
  assert.equal(q.isQueued('a'), true);
  assert.equal(q.tryGet(), 'a');
  q.done('a');
  assert.equal(q.isQueued('a'), false);
});

/** Hands out every ready key (finishing each at once) and returns them in order. */
function drainOrder(q: WorkQueue): string[] {
  const out: string[] = [];
  for (let k = q.tryGet(); k !== undefined; k = q.tryGet()) {
    out.push(k);
    q.done(k);
  }
  return out;
}

/**
 * The order 2 × share keys of a higher lane and 3 of a lower one come out in: share − 1 of the higher,
 * then one of the lower, and so on; then `after`.
 */
function sharedOrder(share: number, higher: string, lower: string, after: readonly string[] = []) {
  const h = Array.from({ length: 2 * share }, (_, i) => `${higher}/${i}`);
  return [
    ...h.slice(0, share - 1),
    `${lower}/0`,
    ...h.slice(share - 1, 2 * share - 2),
    `${lower}/1`,
    ...h.slice(2 * share - 2),
    `${lower}/2`,
    ...after,
  ];
}

test('queue: changes go before routine work, which still gets one hand-out in ROUTINE_SHARE', () => {
  const q = new WorkQueue();
  for (let i = 0; i < 3; i++) q.add(`r/${i}`, 'routine');
  for (let i = 0; i < 2 * ROUTINE_SHARE; i++) q.add(`c/${i}`);
  assert.deepEqual(drainOrder(q), sharedOrder(ROUTINE_SHARE, 'c', 'r'));
});

test('queue: finishing work goes first; the other lanes still get one hand-out in FINISH_SHARE', () => {
  const q = new WorkQueue();
  q.add('r/0', 'routine');
  for (let i = 0; i < 3; i++) q.add(`c/${i}`);
  for (let i = 0; i < 2 * FINISH_SHARE; i++) q.add(`f/${i}`, 'finish');
  assert.deepEqual(drainOrder(q), sharedOrder(FINISH_SHARE, 'f', 'c', ['r/0']));
});

test('queue: a key moves up to the highest lane it was added in, never down', () => {
  const q = new WorkQueue();
  q.add('k/c');
  q.add('k/r', 'routine');
  q.add('k/r', 'finish');
  q.add('k/r', 'change');
  q.add('k/r', 'routine');
  assert.equal(q.len(), 2);
  assert.deepEqual(drainOrder(q), ['k/r', 'k/c']);
});

test('queue: a change to a key waiting as routine moves it to the change lane, never back', () => {
  const q = new WorkQueue();
  q.add('r/a', 'routine');
  q.add('r/b', 'routine');
  q.add('r/b');
  q.add('r/b', 'routine');
  assert.equal(q.len(), 2);
  assert.deepEqual(drainOrder(q), ['r/b', 'r/a']);
});

test('queue: a key added while processing comes back in the higher of its lanes', () => {
  const q = new WorkQueue();
  q.add('k/a', 'routine');
  assert.equal(q.tryGet(), 'k/a');
  q.add('k/a', 'routine');
  q.add('k/a');
  q.add('k/z', 'routine');
  q.done('k/a');
  assert.deepEqual(drainOrder(q), ['k/a', 'k/z']);
});

test('queue: a delayed key keeps the earlier time and the higher priority of its adds', () => {
  const table: ReadonlyArray<readonly [string, Priority, number, Priority, number, string[]]> = [
    // first add (priority, ms), second add (priority, ms), the order once both are due beside a routine key
    ['later change raises a routine wait', 'routine', 10, 'change', 20, ['d/k', 'r/x']],
    ['earlier change replaces a routine wait', 'routine', 20, 'change', 10, ['d/k', 'r/x']],
    ['routine never lowers a change wait', 'change', 10, 'routine', 5, ['d/k', 'r/x']],
    ['routine twice stays routine', 'routine', 10, 'routine', 5, ['r/x', 'd/k']],
  ];
  for (const [name, p1, ms1, p2, ms2, want] of table) {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.add('r/x', 'routine');
    q.addAfter('d/k', ms1, 0, p1);
    q.addAfter('d/k', ms2, 0, p2);
    clock.advance(Math.min(ms1, ms2));
    assert.equal(q.len(), 2, name);
    assert.deepEqual(drainOrder(q), want, name);
    clock.advance(100);
    assert.equal(q.len(), 0, `${name}: fired once`);
  }
});
