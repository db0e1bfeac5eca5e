// Plain HTTP to a TLS port is answered with a 400 naming the https:// URL, not an empty reply; HTTPS on
// the same server is untouched.
import assert from 'node:assert/strict';
import { type ClientRequest, get as httpGet, type IncomingMessage } from 'node:http';
import { createServer, get as httpsGet, type RequestOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { answerPlainHttp } from './plain-http.ts';
import { selfSignedCert } from './tls.ts';

function fetchText(
  get: (url: string, opts: RequestOptions, cb: (res: IncomingMessage) => void) => ClientRequest,
  url: string,
): Promise<{ status: number | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get(url, { rejectUnauthorized: false, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => {
        body += d.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

test('plain HTTP on the TLS port gets a 400 saying to use https://', async (t) => {
  const pair = await selfSignedCert(['127.0.0.1'], 1);
  const server = createServer({ cert: pair.cert, key: pair.key }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const port = (server.address() as AddressInfo).port;
  answerPlainHttp(server, () => `https://127.0.0.1:${port}`);

  const plain = await fetchText(httpGet, `http://127.0.0.1:${port}/apis`);
  assert.equal(plain.status, 400);
  assert.equal(plain.body, `this port speaks HTTPS, not plain HTTP: use https://127.0.0.1:${port}\n`);

  const tls = await fetchText(httpsGet, `https://127.0.0.1:${port}/`);
  assert.deepEqual(tls, { status: 200, body: 'ok' });
});
