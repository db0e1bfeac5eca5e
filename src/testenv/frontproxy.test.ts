// The front-proxy certs kube-apiserver gets with aggregation: a client cert with the allowed
// CN, for client auth only, that the CA really signed, and a key that matches it.
import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { useScratchDir } from '../lib/scratch-dir.ts';
import { FRONT_PROXY_CLIENT_NAME } from './flags.ts';
import { type FrontProxyCerts, writeFrontProxyCerts } from './frontproxy.ts';

describe('writeFrontProxyCerts', () => {
  const dir = useScratchDir('convoy-frontproxy-test-');
  let certs: FrontProxyCerts;
  let ca: X509Certificate;
  let client: X509Certificate;

  before(async () => {
    certs = await writeFrontProxyCerts(join(dir(), 'front-proxy'));
    ca = new X509Certificate(await readFile(certs.caFile));
    client = new X509Certificate(await readFile(certs.clientCertFile));
  });

  it('returns the CA file it wrote as caPem', async () => {
    assert.equal(certs.caPem, await readFile(certs.caFile, 'utf8'));
    assert.equal(ca.ca, true);
  });

  it('issues the client cert to the allowed name, signed by the CA', () => {
    assert.equal(client.subject, `CN=${FRONT_PROXY_CLIENT_NAME}`);
    assert.equal(client.checkIssued(ca), true);
    assert.equal(client.verify(ca.publicKey), true);
    assert.equal(client.ca, false);
  });

  it('makes the client cert for client auth', () => {
    assert.deepEqual(client.keyUsage, ['1.3.6.1.5.5.7.3.2']);
  });

  it('writes the key that belongs to the client cert', async () => {
    const key = createPrivateKey(await readFile(certs.clientKeyFile));
    assert.equal(client.checkPrivateKey(key), true);
  });
});
