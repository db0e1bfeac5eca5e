import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OwnWrites } from './own-writes.ts';

const obj = (rv: string, v: string) => ({ metadata: { resourceVersion: rv }, v });

test('OwnWrites: a write shows until the cache moves past the object it replaced', () => {
  const w = new OwnWrites<ReturnType<typeof obj>>();
  const cached = obj('1', 'old');
  assert.equal(w.fresh('k', cached), cached, 'nothing written: the cache');
  const mine = w.remember('k', cached, obj('2', 'mine'));
  assert.equal(w.fresh('k', cached), mine, 'the cache still shows what was replaced: the write');
  const caughtUp = obj('2', 'mine');
  assert.equal(w.fresh('k', caughtUp), caughtUp, 'the cache caught up: the cache');
  assert.equal(w.fresh('k', cached), cached, 'forgotten once the cache moved on');
});

test('OwnWrites: two writes in one pass keep the version the first one replaced', () => {
  const w = new OwnWrites<ReturnType<typeof obj>>();
  const cached = obj('1', 'old');
  const first = w.remember('k', cached, obj('2', 'a'));
  const second = w.remember('k', first, obj('3', 'b'));
  assert.equal(w.fresh('k', cached), second);
});

test('OwnWrites: a deleted object and forget() drop the write', () => {
  const w = new OwnWrites<ReturnType<typeof obj>>();
  w.remember('k', obj('1', 'old'), obj('2', 'mine'));
  assert.equal(w.fresh('k', undefined), undefined);
  w.remember('k', obj('1', 'old'), obj('2', 'mine'));
  w.forget('k');
  assert.deepEqual(w.fresh('k', obj('1', 'old')), obj('1', 'old'));
});

test('OwnWrites: an event of someone else older than the write does not hide the write', () => {
  const w = new OwnWrites<ReturnType<typeof obj>>();
  const mine = w.remember('k', obj('10', 'old'), obj('12', 'mine'));
  // The cache received another writer's change (11) before this write's own event (12).
  assert.equal(w.fresh('k', obj('11', 'theirs')), mine);
  const newer = obj('13', 'later');
  assert.equal(w.fresh('k', newer), newer, 'a newer cached object wins');
  assert.equal(w.fresh('k', obj('11', 'theirs'))?.v, 'theirs', 'and the write is forgotten');
});

test('OwnWrites: opaque resourceVersions fall back to "the cache still shows what was replaced"', () => {
  const w = new OwnWrites<ReturnType<typeof obj>>();
  const mine = w.remember('k', obj('a', 'old'), obj('c', 'mine'));
  assert.equal(w.fresh('k', obj('a', 'old')), mine);
  const other = obj('b', 'theirs');
  assert.equal(w.fresh('k', other), other);
});
