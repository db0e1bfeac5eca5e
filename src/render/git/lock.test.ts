// The per-URL lock: one holder per key, other keys unaffected, failures release it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedLock, Shared } from './lock.ts';

/** A promise with its resolver, so a test decides when a holder finishes. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
}

/** A Shared and a call to it that counts itself, waits for `open()`, then settles as `settle(calls)` says. */
function heldCalls<T>(settle: (calls: number) => T) {
  const shared = new Shared<T>();
  const g = gate();
  let calls = 0;
  const fn = async () => {
    calls++;
    await g.opened;
    return settle(calls);
  };
  return { shared, fn, open: g.open };
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

describe('KeyedLock with a signal', () => {
  it('a waiter whose signal aborts leaves at once; the one behind it waits only for the holder', async () => {
    const lock = new KeyedLock();
    const g = gate();
    const events: string[] = [];
    const a = lock.run('k', async () => {
      await g.opened;
      events.push('a end');
    });
    const ac = new AbortController();
    const b = lock.run('k', async () => events.push('b ran'), ac.signal);
    const c = lock.run('k', async () => events.push('c ran'));
    ac.abort(new Error('deadline'));
    await assert.rejects(b, /deadline/);
    assert.deepEqual(events, []);
    g.open();
    await Promise.all([a, c]);
    assert.deepEqual(events, ['a end', 'c ran']);
    assert.equal(lock.size, 0);
  });
  it('an already aborted signal never queues', async () => {
    const lock = new KeyedLock();
    await assert.rejects(
      lock.run('k', async () => 1, AbortSignal.abort(new Error('gone'))),
      /gone/,
    );
    assert.equal(lock.size, 0);
  });
});

describe('Shared', () => {
  it('callers of one key while it is in flight get the one result; later callers start anew', async () => {
    const { shared, fn, open } = heldCalls((calls) => calls);
    const a = shared.run('k', fn);
    const b = shared.run('k', fn);
    assert.equal(shared.size, 1);
    open();
    assert.deepEqual(await Promise.all([a, b]), [1, 1]);
    assert.equal(shared.size, 0);
    assert.equal(await shared.run('k', fn), 2);
  });
  it('a failure reaches every caller and is not kept', async () => {
    const { shared, fn, open } = heldCalls<number>((calls) => {
      throw new Error(`timed out ${calls}`);
    });
    const a = shared.run('k', fn);
    const b = shared.run('k', fn);
    open();
    await assert.rejects(a, /timed out 1/);
    await assert.rejects(b, /timed out 1/);
    await assert.rejects(shared.run('k', fn), /timed out 2/);
  });
  it('a caller whose signal aborts stops waiting; the others still get the result', async () => {
    const shared = new Shared<string>();
    const g = gate();
    const fn = async () => {
      await g.opened;
      return 'done';
    };
    const ac = new AbortController();
    const a = shared.run('k', fn, ac.signal);
    const b = shared.run('k', fn);
    ac.abort(new Error('sync requested'));
    await assert.rejects(a, /sync requested/);
    g.open();
    assert.equal(await b, 'done');
  });
  it('a caller that needs a read started after its request does not join an older call; later ones join the new', async () => {
    let clock = 0;
    const shared = new Shared<string>(() => clock);
    const first = gate();
    const second = gate();
    const answers = [first, second];
    let calls = 0;
    const fn = async () => {
      const n = ++calls;
      const g = answers[n - 1];
      if (g === undefined) throw new Error('a third call');
      await g.opened;
      return `read ${n}`;
    };
    clock = 1;
    const poll = shared.run('k', fn); // started at 1, before the push
    clock = 5;
    const pushed = shared.run('k', fn, undefined, 4); // the request was seen at 4
    clock = 6;
    const alsoPushed = shared.run('k', fn, undefined, 4); // joins the call started at 5
    const plain = shared.run('k', fn); // no request: joins the call in flight
    assert.equal(calls, 2);
    first.open();
    second.open();
    assert.deepEqual(await Promise.all([poll, pushed, alsoPushed, plain]), [
      'read 1',
      'read 2',
      'read 2',
      'read 2',
    ]);
    assert.equal(shared.size, 0);
  });
  it('the older call ending does not drop the newer one from the map', async () => {
    let clock = 0;
    const shared = new Shared<string>(() => clock);
    const first = gate();
    const second = gate();
    let calls = 0;
    const fn = async () => {
      const n = ++calls;
      await (n === 1 ? first.opened : second.opened);
      return `read ${n}`;
    };
    const old = shared.run('k', fn);
    clock = 2;
    const fresh = shared.run('k', fn, undefined, 1);
    first.open();
    assert.equal(await old, 'read 1');
    // the newer call is still in flight and still joinable
    assert.equal(shared.size, 1);
    const joined = shared.run('k', fn, undefined, 2);
    second.open();
    assert.deepEqual(await Promise.all([fresh, joined]), ['read 2', 'read 2']);
    assert.equal(calls, 2);
  });
});
