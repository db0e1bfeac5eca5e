// A failing openssl step names itself and what openssl printed (the callers add what they were making).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OpensslError, openssl } from './openssl.ts';

test('openssl: a failure is an OpensslError naming the step and openssl’s own words', async () => {
  await assert.rejects(openssl(['req', '-no-such-option']), (err: unknown) => {
    assert.ok(err instanceof OpensslError);
    assert.match(err.message, /^openssl req failed: .*no-such-option/s);
    return true;
  });
});
