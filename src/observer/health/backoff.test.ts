import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { progressBackoff, RecheckAttempts, scheduleHealthRecheck } from './backoff.ts';

const s = 1000;

test('progressBackoff table', () => {
  const cases: [number, number | undefined, number, number][] = [
    // attempt, interval, random, want
    [1, undefined, 0, 2 * s],
    [2, undefined, 0, 4 * s],
    [3, undefined, 0, 8 * s],
    [4, undefined, 0, 16 * s],
    [5, undefined, 0, 32 * s],
    [6, undefined, 0, 32 * s],
    [1, undefined, 0.5, 2.2 * s],
    [1, undefined, 0.999999, 2 * s * (1 + 0.2 * 0.999999)],
    [4, undefined, 0.5, 17.6 * s],
    [5, undefined, 0.5, 32 * s], // cap includes the jitter
    [3, 5 * s, 0, 5 * s], // interval caps
    [1, 1 * s, 0, 1 * s], // an interval under 2 s caps lower
    [10, 5 * 60 * s, 0, 5 * 60 * s],
    [9, 5 * 60 * s, 0, 5 * 60 * s], // 2^9 s = 512 s > 300 s
    [1, 0, 0, 2 * s], // interval 0 = unset
    [0, undefined, 0, 2 * s], // attempts start at 1
    [2000, undefined, 0.3, 32 * s], // no overflow
  ];
  for (const [attempt, interval, random, want] of cases) {
    const got = progressBackoff(attempt, interval, () => random);
    assert.ok(
      Math.abs(got - want) < 1e-6,
      `attempt ${attempt} interval ${interval} random ${random}: ${got} != ${want}`,
    );
  }
});

test('progressBackoff property: within [min(2 s, cap), cap]', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 200 }),
      fc.option(fc.integer({ min: 1, max: 3_600_000 }), { nil: undefined }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      (attempt, interval, r) => {
        const cap = interval ?? 32_000;
        const d = progressBackoff(attempt, interval, () => r);
        assert.ok(d <= cap, `${d} > cap ${cap}`);
        assert.ok(d >= Math.min(2000, cap), `${d} < 2 s`);
        assert.ok(d >= Math.min(2 ** Math.min(attempt, 40) * 1000, cap), 'at least 2^n s unless capped');
        assert.ok(d <= 2 ** Math.min(attempt, 40) * 1000 * 1.2, 'jitter at most 20 %');
      },
    ),
  );
});

test('scheduleHealthRecheck table', () => {
  const zero = () => 0;
  const m = (o: Record<string, number>) => new Map(Object.entries(o));
  const cases: [
    string,
    Record<string, number>,
    string[],
    number | undefined,
    Record<string, number>,
    number | undefined,
  ][] = [
    ['nothing pending, no interval: no timed pass', { a: 3 }, [], undefined, {}, undefined],
    ['nothing pending: interval', { a: 3 }, [], 60 * s, {}, 60 * s],
    ['nothing pending, interval 0 = unset', {}, [], 0, {}, undefined],
    ['first pending target: 2 s', {}, ['a'], undefined, { a: 1 }, 2 * s],
    ['repeated: counts grow', { a: 2 }, ['a'], undefined, { a: 3 }, 8 * s],
    ['a new target brings the delay back to 2 s', { a: 4 }, ['a', 'b'], undefined, { a: 5, b: 1 }, 2 * s],
    ['targets no longer pending are cleared', { a: 4, b: 2 }, ['b'], undefined, { b: 3 }, 8 * s],
    ['interval caps', { a: 9 }, ['a'], 10 * s, { a: 10 }, 10 * s],
    ['no interval caps at 32 s', { a: 9 }, ['a'], undefined, { a: 10 }, 32 * s],
  ];
  for (const [what, prior, pending, interval, wantCounts, wantDelay] of cases) {
    const got = scheduleHealthRecheck(m(prior), pending, interval, zero);
    assert.deepEqual(Object.fromEntries(got.counts), wantCounts, what);
    assert.equal(got.delayMs, wantDelay, what);
  }
});

test('scheduleHealthRecheck property: delay never exceeds the cap and counts follow pending', () => {
  fc.assert(
    fc.property(
      fc.dictionary(fc.string({ maxLength: 3 }), fc.integer({ min: 1, max: 50 })),
      fc.uniqueArray(fc.string({ maxLength: 3 }), { maxLength: 6 }),
      fc.option(fc.integer({ min: 1, max: 600_000 }), { nil: undefined }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      (prior, pending, interval, r) => {
        const got = scheduleHealthRecheck(new Map(Object.entries(prior)), pending, interval, () => r);
        assert.deepEqual([...got.counts.keys()].sort(), [...pending].sort());
        for (const id of pending)
          assert.equal(got.counts.get(id), (Object.hasOwn(prior, id) ? (prior[id] ?? 0) : 0) + 1);
        if (pending.length === 0) assert.equal(got.delayMs, interval);
        else {
          const cap = interval ?? 32_000;
          assert.ok(got.delayMs !== undefined && got.delayMs <= cap && got.delayMs >= Math.min(2000, cap));
        }
      },
    ),
  );
});

test('H97 "The count is in memory and is lost at a restart": a new process starts every target at 2 s', () => {
  const zero = () => 0;
  const running = new RecheckAttempts();
  const delays = [1, 2, 3].map(() => running.next('ns/web', ['object:a'], undefined, zero));
  assert.deepEqual(delays, [2 * s, 4 * s, 8 * s], 'the count grows within one process');
  assert.equal(running.next('ns/other', ['object:a'], undefined, zero), 2 * s, 'counts are per Release');
  const restarted = new RecheckAttempts();
  assert.equal(restarted.next('ns/web', ['object:a'], undefined, zero), 2 * s, 'a restart starts over');
  running.forget('ns/web');
  assert.equal(
    running.next('ns/web', ['object:a'], undefined, zero),
    2 * s,
    'a forgotten Release starts over',
  );
});
