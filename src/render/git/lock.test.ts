// The per-URL lock: one holder per key, other keys unaffected, failures release it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedLock } from './lock.ts';

/** A promise with its resolver, so a test decides when a holder finishes. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
}

describe('KeyedLock', () => {
  it('runs holders of one key one after another, in order', async () => {
    const lock = new KeyedLock();
    const events: string[] = [];
    const g = gate();
    const a = lock.run('k', async () => {
      events.push('a start');
      await g.opened;
      events.push('a end');
    });
    const b = lock.run('k', async () => {
      events.push('b start');
    });
    // b cannot start while a holds the key, however long we let the event loop run
    for (let i = 0; i < 10; i++) await Promise.resolve();
    assert.deepEqual(events, ['a start']);
    g.open();
    await Promise.all([a, b]);
    assert.deepEqual(events, ['a start', 'a end', 'b start']);
    assert.equal(lock.size, 0);
  });

  it('runs different keys at the same time', async () => {
    const lock = new KeyedLock();
    const g = gate();
    const a = lock.run('a', () => g.opened);
    let bRan = false;
    await lock.run('b', async () => {
      bRan = true;
    });
    assert.equal(bRan, true);
    g.open();
    await a;
  });

  it('a failing holder releases the key', async () => {
    const lock = new KeyedLock();
    await assert.rejects(
      lock.run('k', () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await lock.run('k', async () => 42), 42);
    assert.equal(lock.size, 0);
  });
});
