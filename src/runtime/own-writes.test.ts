import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventHandlers } from './informer.ts';
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

test('OwnWrites.follow: a write is dropped when the informer delivers it, not kept until the next read', () => {
  type O = ReturnType<typeof obj> & { metadata: { name: string } };
  const named = (rv: string, v: string): O => ({ metadata: { name: 'k', resourceVersion: rv }, v });
  let handlers: EventHandlers<O> = {};
  const w = new OwnWrites<O>();
  w.follow({ addHandlers: (h) => (handlers = h) });
  const cached = named('1', 'old');
  w.remember('k', cached, named('3', 'mine'));
  handlers.update?.(cached, named('2', 'someone else')); // an older event: the write still counts
  assert.equal(w.size(), 1);
  assert.equal(w.fresh('k', named('2', 'someone else'))?.v, 'mine');
  handlers.update?.(named('2', 'someone else'), named('3', 'mine')); // the write's own event
  assert.equal(w.size(), 0);
  w.remember('k', named('3', 'mine'), named('4', 'again'));
  handlers.delete?.(named('3', 'mine'));
  assert.equal(w.size(), 0, 'a deleted object drops its write');
});
