// Table test of comparing the TLS identities of two requests by content.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sameTlsIdentity, type TlsIdentity } from './tls-identity.ts';

const pem = (s: string) => Buffer.from(`-----BEGIN CERTIFICATE-----\n${s}\n-----END CERTIFICATE-----\n`);

test('sameTlsIdentity: equal content in fresh Buffers is the same identity; any difference is not', () => {
  const base: TlsIdentity = { ca: pem('ca'), cert: pem('c'), key: pem('k'), rejectUnauthorized: true };
  const rows: ReadonlyArray<readonly [string, TlsIdentity, boolean]> = [
    [
      'fresh Buffers, same bytes',
      { ca: pem('ca'), cert: pem('c'), key: pem('k'), rejectUnauthorized: true },
      true,
    ],
    ['another CA', { ...base, ca: pem('ca2') }, false],
    ['another client certificate', { ...base, cert: pem('c2') }, false],
    ['another key', { ...base, key: pem('k2') }, false],
    ['no client certificate', { ca: base.ca, rejectUnauthorized: true }, false],
    ['verification off', { ...base, rejectUnauthorized: false }, false],
    ['a servername', { ...base, servername: 'x' }, false],
    ['CA as a string', { ...base, ca: pem('ca').toString() }, false],
  ];
  for (const [what, other, same] of rows) {
    assert.equal(sameTlsIdentity(base, other), same, what);
    assert.equal(sameTlsIdentity(other, base), same, `${what} (swapped)`);
  }
  assert.equal(sameTlsIdentity({}, {}), true, 'plain http: nothing to compare');
  assert.equal(sameTlsIdentity({ ca: 'x' }, { ca: 'x' }), true, 'equal strings');
  assert.equal(sameTlsIdentity({ ca: [pem('a'), pem('b')] }, { ca: [pem('a'), pem('b')] }), true, 'CA lists');
  assert.equal(sameTlsIdentity({ ca: [pem('a'), pem('b')] }, { ca: [pem('a')] }), false, 'shorter CA list');
  const keyObject = { pem: 'k', passphrase: 'p' };
  assert.equal(sameTlsIdentity({ key: keyObject }, { key: { ...keyObject } }), false, 'objects: hashed');
});
