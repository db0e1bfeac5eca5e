// Table tests for the fair-share decision, plus a simulation of replicas taking their own
// decisions round after round from a shared view: they settle balanced, with every shard held.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type BalanceDecision, decideBalance, rank, type ShardState } from './balance.ts';

const STALE = 10_000;
const free = (freeForMs = 0): ShardState => ({ kind: 'free', freeForMs });
const held = (holder: string): ShardState => ({ kind: 'held', holder });
const unknown: ShardState = { kind: 'unknown' };

/** `shards` as a string: one char per shard, '.' free, '?' unknown, else the holder's name. */
const view = (shards: string): ShardState[] =>
  [...shards].map((c) => (c === '.' ? free() : c === '?' ? unknown : held(c)));

const decide = (me: string, members: string[], shards: ShardState[]): BalanceDecision =>
  decideBalance({ me, members, shards, staleAfterMs: STALE });

test('how many shards each member acquires and releases', () => {
  // name, members, shards, me, acquired, released, share
  const cases: Array<[string, string[], string, string, number, number, number]> = [
    ['alone: takes every free shard', ['a'], '....', 'a', 4, 0, 4],
    ['not listed yet: counts itself', [], '....', 'a', 4, 0, 4],
    ['two, all free: half each (a)', ['a', 'b'], '....', 'a', 2, 0, 2],
    ['two, all free: half each (b)', ['a', 'b'], '....', 'b', 2, 0, 2],
    ['newcomer: the holder of all gives half', ['a', 'b'], 'aaaa', 'a', 0, 2, 2],
    ['newcomer: waits for what is given', ['a', 'b'], 'aaaa', 'b', 0, 0, 2],
    ['after a release: the giver does not take back', ['a', 'b'], 'aa..', 'a', 0, 0, 2],
    ['after a release: the short one takes', ['a', 'b'], 'aa..', 'b', 2, 0, 2],
    ['balanced 2/2: nothing', ['a', 'b'], 'abab', 'a', 0, 0, 2],
    ['third joins 2/2: the first fullest gives one', ['a', 'b', 'c'], 'aabb', 'a', 0, 1, 2],
    ['third joins 2/2: the other keeps its two', ['a', 'b', 'c'], 'aabb', 'b', 0, 0, 2],
    ['odd split 3/2 is balanced', ['a', 'b'], 'aaabb', 'a', 0, 0, 3],
    ['member died: its free shards go to the survivor', ['a'], 'aa..', 'a', 2, 0, 4],
    ['more members than shards: one each (a)', ['a', 'b', 'c'], '..', 'a', 1, 0, 1],
    ['more members than shards: one each (b)', ['a', 'b', 'c'], '..', 'b', 1, 0, 1],
    ['more members than shards: none left (c)', ['a', 'b', 'c'], '..', 'c', 0, 0, 1],
    ['more members than shards: holder of both gives one', ['a', 'b', 'c'], 'aa', 'a', 0, 1, 1],
    ['a non-member holder is waited for, not counted', ['a', 'b'], 'x...', 'a', 2, 0, 2],
    ['... and the rest split (b)', ['a', 'b'], 'x...', 'b', 1, 0, 2],
    ['unknown shards are neither taken nor counted', ['a', 'b'], '??a.', 'b', 1, 0, 2],
    [
      'holding 3 of 4 with one free: the short one is filled, still one to give',
      ['a', 'b'],
      'aaa.',
      'a',
      0,
      1,
      2,
    ],
    ['holding 3 of 4 with one free: the short one takes it', ['a', 'b'], 'aaa.', 'b', 1, 0, 2],
  ];
  for (const [name, members, shards, me, acquired, released, share] of cases) {
    const d = decide(me, members, view(shards));
    assert.equal(d.acquire.length, acquired, `${name}: acquire ${d.acquire}`);
    assert.equal(d.release.length, released, `${name}: release ${d.release}`);
    assert.equal(d.share, share, `${name}: share`);
    for (const s of d.acquire) assert.equal(view(shards)[s]?.kind, 'free', `${name}: acquires held ${s}`);
    for (const s of d.release) assert.equal(shards[s], me, `${name}: releases ${s}, not its own`);
  }
});

test('members given the same view want disjoint free shards that cover all of them', () => {
  for (const [members, shards] of [
    [['a', 'b'], '........'],
    [['a', 'b', 'c'], '.a..b...c'],
    [['r-1', 'r-2', 'r-3', 'r-4'], '...'],
  ] as const) {
    const wants = members.flatMap((m) => decide(m, [...members], view(shards)).acquire);
    const freeShards = [...shards].flatMap((c, i) => (c === '.' ? [i] : []));
    assert.deepEqual(
      [...wants].sort((x, y) => x - y),
      freeShards,
      `${members} over ${shards}`,
    );
  }
});

test('the released shard is the one the giver ranks lowest', () => {
  const d = decide('a', ['a', 'b'], view('aaaa'));
  const byRank = [0, 1, 2, 3].sort((x, y) => rank(x, 'a') - rank(y, 'a'));
  assert.deepEqual([...d.release].sort(), byRank.slice(0, 2).sort());
});

test('a free shard left for someone else is taken once it is stale', () => {
  const shards = (age: number) => [held('a'), held('a'), held('b'), free(age)];
  assert.deepEqual(decide('a', ['a', 'b'], shards(STALE - 1)).acquire, []);
  assert.deepEqual(decide('a', ['a', 'b'], shards(STALE)).acquire, [3]);
  assert.deepEqual(decide('b', ['a', 'b'], shards(0)).acquire, [3]);
});

/** Rounds of every member deciding on the same view, releases first, then acquisitions in member order. */
function simulate(members: string[], start: string[]): { rounds: number; holders: string[] } {
  const holders = [...start];
  for (let round = 1; round <= 20; round++) {
    const states = (): ShardState[] => holders.map((h) => (h === '' ? free() : held(h)));
    const decisions = members.map((m) => [m, decide(m, members, states())] as const);
    let changed = false;
    for (const [, d] of decisions)
      for (const s of d.release) {
        holders[s] = '';
        changed = true;
      }
    for (const [m, d] of decisions)
      for (const s of d.acquire)
        if (holders[s] === '') {
          holders[s] = m;
          changed = true;
        }
    if (!changed) return { rounds: round, holders };
  }
  throw new Error(`no steady state from ${start} for ${members}`);
}

test('replicas settle balanced with every shard held', () => {
  let seed = 7;
  const rand = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  for (let i = 0; i < 300; i++) {
    const m = 1 + rand(5);
    const n = 1 + rand(12);
    const members = Array.from({ length: m }, (_, k) => `replica-${k}-${rand(1000)}`);
    // A start as after crashes and restarts: shards free or held by any member.
    const start = Array.from({ length: n }, () => (rand(3) === 0 ? '' : (members[rand(m)] as string)));
    const { rounds, holders } = simulate(members, start);
    const counts = members.map((x) => holders.filter((h) => h === x).length);
    const label = `${m} members, ${n} shards, from [${start}] to [${holders}]`;
    assert.ok(
      holders.every((h) => h !== ''),
      `orphaned shard: ${label}`,
    );
    assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `unbalanced: ${label}`);
    assert.ok(Math.max(...counts) <= Math.ceil(n / m), `over share: ${label}`);
    // A release and the pick-up take one round each; nothing moves more than once.
    assert.ok(rounds <= 3, `${rounds} rounds: ${label}`);
  }
});
