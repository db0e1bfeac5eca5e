// plainHttpHint by table: OpenSSL's answer to a plain-HTTP registry, however deep in the causes, becomes
// "add --insecure"; anything else is left to be printed as it is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plainHttpHint } from './push.ts';

test('plainHttpHint: a TLS hello answered in plain HTTP says add --insecure', () => {
  const openssl = Object.assign(
    new Error(
      'C0F7:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../ssl/record/ssl3_record.c:354:',
    ),
    { code: 'ERR_SSL_WRONG_VERSION_NUMBER' },
  );
  const want = 'reg.local:5000 answered in plain HTTP? add --insecure (no TLS handshake was possible)';
  const cases: ReadonlyArray<readonly [string, unknown, string | undefined]> = [
    ['OpenSSL error', openssl, want],
    ['wrapped by fetch', new TypeError('fetch failed', { cause: openssl }), want],
    ['EPROTO', Object.assign(new Error('write EPROTO'), { code: 'EPROTO' }), want],
    ['packet length', new Error('packet length too long'), want],
    [
      'refused',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5000'), { code: 'ECONNREFUSED' }),
      undefined,
    ],
    ['a certificate', new Error('self-signed certificate'), undefined],
    ['not an Error', 'wrong version number', undefined],
  ];
  for (const [what, err, hint] of cases) assert.equal(plainHttpHint(err, 'reg.local:5000'), hint, what);
});
