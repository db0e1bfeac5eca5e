// Plain HTTP to a TLS port is answered with a 400 naming the https:// URL, not an empty reply; HTTPS on
// the same server is untouched.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { createServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { responseText } from '../../test/support/https-get.ts';
import { answerPlainHttp } from './plain-http.ts';
import { selfSignedCert } from './tls.ts';

/** A GET that accepts the test's self-signed certificate. */
const getText = (request: typeof httpsRequest, url: string) =>
  responseText((onResponse) => request(url, { rejectUnauthorized: false, timeout: 5000 }, onResponse));

test('plain HTTP on the TLS port gets a 400 saying to use https://', async (t) => {
  const pair = await selfSignedCert(['127.0.0.1'], 1);
  const server = createServer({ cert: pair.cert, key: pair.key }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const port = (server.address() as AddressInfo).port;
  answerPlainHttp(server, () => `https://127.0.0.1:${port}`);

  const plain = await getText(httpRequest, `http://127.0.0.1:${port}/apis`);
  assert.equal(plain.status, 400);
  assert.equal(plain.body, `this port speaks HTTPS, not plain HTTP: use https://127.0.0.1:${port}\n`);

  const tls = await getText(httpsRequest, `https://127.0.0.1:${port}/`);
  assert.deepEqual(tls, { status: 200, body: 'ok' });
});
