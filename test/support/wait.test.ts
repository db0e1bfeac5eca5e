// waitFor's contract: returns the first truthy-enough value, treats throws as "not yet",
// and names what it waited for plus the last value/error when it gives up.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WaitTimeoutError, waitFor } from './wait.ts';

describe('waitFor', () => {
  it('returns the first value that is neither undefined nor false', async () => {
    let calls = 0;
    const got = await waitFor('the third call', async () => (++calls >= 3 ? { calls } : undefined), {
      intervalMs: 1,
    });
    assert.deepEqual(got, { calls: 3 });
  });

  it('accepts falsy values other than false and undefined (0, empty string)', async () => {
    assert.equal(await waitFor('zero', async () => 0), 0);
    assert.equal(await waitFor('empty', async () => ''), '');
  });

  it('keeps polling through errors', async () => {
    let calls = 0;
    const got = await waitFor(
      'recovery',
      async () => {
        if (++calls < 3) throw new Error('not yet');
        return 'ok';
      },
      { intervalMs: 1 },
    );
    assert.equal(got, 'ok');
  });

  it('times out naming what it waited for and the last value', async () => {
    await assert.rejects(
      waitFor('the answer', async () => false, { timeoutMs: 30, intervalMs: 5 }),
      (err: unknown) => {
        assert.ok(err instanceof WaitTimeoutError);
        assert.match(err.message, /waiting for the answer/);
        assert.match(err.message, /last value: false/);
        return true;
      },
    );
  });

  it('times out reporting the last error', async () => {
    await assert.rejects(
      waitFor(
        'a flaky thing',
        async () => {
          throw new Error('connection refused');
        },
        { timeoutMs: 30, intervalMs: 5 },
      ),
      /waiting for a flaky thing; last error: connection refused/,
    );
  });

  it('does not overshoot its timeout by more than one attempt', async () => {
    const started = Date.now();
    await assert.rejects(waitFor('never', async () => undefined, { timeoutMs: 50, intervalMs: 1000 }));
    assert.ok(Date.now() - started < 500, `took ${Date.now() - started}ms`);
  });
});
