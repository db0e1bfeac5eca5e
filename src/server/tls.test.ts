import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import { selfSignedCert, subjectAltNames } from './tls.ts';

test('subjectAltNames: IPs as IP:, names as DNS:', () => {
  assert.equal(subjectAltNames(['127.0.0.1', 'localhost', '::1']), 'IP:127.0.0.1,DNS:localhost,IP:::1');
  assert.equal(subjectAltNames(['convoy-api.convoy-system.svc']), 'DNS:convoy-api.convoy-system.svc');
  assert.throws(() => subjectAltNames([]), /at least one host/);
  assert.throws(() => subjectAltNames(['a,DNS:evil']), /not a host name/);
});

test('selfSignedCert: the openssl CLI makes a cert for the hosts, matching its key', async () => {
  const { cert, key } = await selfSignedCert(['127.0.0.1', 'localhost'], 1);
  const x = new X509Certificate(cert);
  assert.match(x.subjectAltName ?? '', /IP Address:127\.0\.0\.1/);
  assert.match(x.subjectAltName ?? '', /DNS:localhost/);
  assert.equal(x.checkIP('127.0.0.1'), '127.0.0.1');
  assert.match(key, /BEGIN PRIVATE KEY/);
  const { createPrivateKey } = await import('node:crypto');
  assert.equal(x.checkPrivateKey(createPrivateKey(key)), true);
});
