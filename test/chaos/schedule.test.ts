// The fault schedule is a function of its seed: replaying CHAOS_SEED replays the faults.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { faultSchedule, prometheusSchedule, seedFrom } from './schedule.ts';

const opts = { kills: 5, apiServerRestarts: 2, gapMs: [1_000, 9_000], downMs: [0, 3_000] } as const;

test('one seed, one schedule: the counts asked for, the ranges kept', () => {
  const a = faultSchedule({ ...opts, seed: 7 });
  assert.deepEqual(faultSchedule({ ...opts, seed: 7 }), a);
  assert.notDeepEqual(faultSchedule({ ...opts, seed: 8 }), a);
  assert.equal(a.filter((f) => f.kind === 'kill').length, 5);
  assert.equal(a.filter((f) => f.kind === 'restart-apiserver').length, 2);
  for (const f of a) {
    assert.ok(f.gapMs >= 1_000 && f.gapMs <= 9_000, JSON.stringify(f));
    if (f.kind === 'kill') assert.ok(f.downMs >= 0 && f.downMs <= 3_000, JSON.stringify(f));
  }
});

test('every apiserver restart comes in the first half of its share of the kills, whatever the seed', () => {
  for (let seed = 0; seed < 200; seed++) {
    for (const [kills, apiServerRestarts] of [
      [12, 3],
      [3, 1],
      [0, 2],
      [4, 0],
    ] as const) {
      const s = faultSchedule({ ...opts, kills, apiServerRestarts, seed });
      const killsBefore = s.flatMap((f, i) =>
        f.kind === 'restart-apiserver' ? [s.slice(0, i).filter((g) => g.kind === 'kill').length] : [],
      );
      const share = kills / apiServerRestarts;
      assert.equal(killsBefore.length, apiServerRestarts);
      assert.equal(s.length, kills + apiServerRestarts);
      killsBefore.forEach((n, k) => {
        const from = Math.floor(k * share);
        assert.ok(
          n >= from && n <= from + Math.floor(share / 2),
          `seed ${seed}, ${kills} kills: restart ${k} after ${n} kills`,
        );
      });
    }
  }
  // 12 kills and 3 restarts (the full run): the first restart comes within the first three faults.
  for (let seed = 0; seed < 50; seed++) {
    const s = faultSchedule({ ...opts, kills: 12, apiServerRestarts: 3, seed });
    assert.ok(
      s.slice(0, 3).some((f) => f.kind === 'restart-apiserver'),
      `seed ${seed}`,
    );
  }
});

test('CHAOS_SEED is taken as given, refused when not an integer', () => {
  assert.equal(seedFrom({ CHAOS_SEED: '42' }), 42);
  assert.ok(Number.isSafeInteger(seedFrom({})));
  assert.throws(() => seedFrom({ CHAOS_SEED: 'abc' }), /CHAOS_SEED must be an integer/);
});

test('the Prometheus kills: one seed, one schedule, the ranges kept; the convoy schedule is untouched', () => {
  const p = { kills: 4, gapMs: [5_000, 20_000], downMs: [2_000, 8_000] } as const;
  const a = prometheusSchedule({ ...p, seed: 7 });
  assert.deepEqual(prometheusSchedule({ ...p, seed: 7 }), a);
  assert.notDeepEqual(prometheusSchedule({ ...p, seed: 8 }), a);
  assert.equal(a.length, 4);
  for (const f of a) {
    assert.ok(f.gapMs >= 5_000 && f.gapMs <= 20_000, JSON.stringify(f));
    assert.ok(f.downMs >= 2_000 && f.downMs <= 8_000, JSON.stringify(f));
  }
  assert.deepEqual(prometheusSchedule({ ...p, kills: 0, seed: 7 }), []);
});
