import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { selfSigned } from '../lib/openssl.ts';
import { useScratchDir } from '../lib/scratch-dir.ts';
import { queryPrometheus, queryValue, sampleValue } from './prometheus.ts';
import { sendJson, startServer } from './testsupport.ts';

const vector = (...values: string[]) => ({
  status: 'success',
  data: { resultType: 'vector', result: values.map((v, i) => ({ metric: { i: String(i) }, value: [1, v] })) },
});

test('queryValue: vector, scalar and what is refused', () => {
  const cases: [unknown, unknown][] = [
    [vector('0.072').data, { ok: true, value: [0.072] }],
    [vector().data, { ok: true, value: [] }],
    [
      vector('NaN', '+Inf', '-Inf', '1e-3').data,
      { ok: true, value: [Number.NaN, Infinity, -Infinity, 0.001] },
    ],
    [
      { resultType: 'scalar', result: [1, '42'] },
      { ok: true, value: 42 },
    ],
    [
      { resultType: 'matrix', result: [] },
      {
        ok: false,
        message:
          'the query returned a range vector (matrix); write an instant query, e.g. max_over_time(x[5m])',
      },
    ],
    [
      { resultType: 'string', result: [1, 'x'] },
      { ok: false, message: 'the query returned a string, not a number' },
    ],
    [
      { resultType: 'vector', result: [{ value: [1, 'abc'] }] },
      { ok: false, message: 'a sample of the vector has no numeric value' },
    ],
    [{ resultType: 'other' }, { ok: false, message: 'unknown resultType "other"' }],
  ];
  for (const [data, want] of cases) assert.deepEqual(queryValue(data), want, JSON.stringify(data));
  const many = { resultType: 'vector', result: Array.from({ length: 1001 }, () => ({ value: [1, '1'] })) };
  assert.deepEqual(queryValue(many), {
    ok: false,
    message: 'the query returned 1001 series; the limit is 1000 (aggregate it, e.g. sum(...))',
  });
  assert.equal(sampleValue(''), undefined);
});

test('queryPrometheus: one POST to /api/v1/query with the credentials, none of them in messages', async (t) => {
  const server = await startServer((req, res) => {
    if (
      req.headers.authorization === 'Bearer tok3n' ||
      req.headers.authorization === `Basic ${Buffer.from('u:pa55').toString('base64')}`
    ) {
      sendJson(res, 200, vector('0.5'));
    } else sendJson(res, 401, { status: 'error', errorType: 'unauthorized', error: 'bad credentials' });
  });
  t.after(() => server.close());
  const q = { address: `${server.url}/prefix`, query: 'sum(rate(x[5m]))' };
  assert.deepEqual(await queryPrometheus({ ...q, auth: { kind: 'bearer', token: 'tok3n' } }), {
    ok: true,
    value: [0.5],
  });
  assert.deepEqual(
    await queryPrometheus({ ...q, auth: { kind: 'basic', username: 'u', password: 'pa55' } }),
    {
      ok: true,
      value: [0.5],
    },
  );
  const seen = server.seen[0];
  assert.equal(seen?.method, 'POST');
  assert.equal(seen?.url, '/prefix/api/v1/query');
  assert.equal(new URLSearchParams(seen?.body).get('query'), 'sum(rate(x[5m]))');
  const refused = await queryPrometheus({ ...q, auth: { kind: 'bearer', token: 'wrong-tok3n' } });
  assert.deepEqual(refused, {
    ok: false,
    message: 'Prometheus refused the query (HTTP 401): bad credentials',
  });
});

test('queryPrometheus: faults end as a short message', async (t) => {
  let mode = '';
  /** The whole answer of a mode: status, content type, body. */
  const answers: Record<string, readonly [number, string, string]> = {
    html: [200, 'text/html', '<!DOCTYPE html><html><body>Sign in</body></html>'],
    text: [200, 'text/plain', 'upstream connect error'],
    '5xx': [503, 'application/json', '{}'],
    big: [200, 'application/json', JSON.stringify(vector(...Array.from({ length: 40_000 }, () => '1')))],
  };
  const server = await startServer((_req, res) => {
    const answer = answers[mode];
    if (answer !== undefined) {
      const [status, contentType, body] = answer;
      res.writeHead(status, { 'content-type': contentType });
      res.end(body);
      return;
    }
    switch (mode) {
      case 'hang':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"status":');
        return;
      case 'bad-query':
        sendJson(res, 400, {
          status: 'error',
          errorType: 'bad_data',
          error: 'parse error at char 5: secret-arg',
        });
        return;
      default:
        sendJson(res, 200, { hello: 'world' });
    }
  });
  t.after(() => server.close());
  const host = new URL(server.url).host;
  const ask = (m: string, timeoutMs?: number) => {
    mode = m;
    return queryPrometheus({
      address: server.url,
      query: 'x{a="secret-arg"}',
      secrets: ['secret-arg'],
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    });
  };
  const cases: [string, string][] = [
    ['html', `${host} answered HTTP 200 with an HTML page, not JSON (a login page or a proxy?)`],
    ['text', `${host} answered HTTP 200 with something other than JSON: "upstream connect error"`],
    ['5xx', `${host} answered HTTP 503`],
    ['big', `${host} answered more than 1 MiB`],
    ['bad-query', 'Prometheus refused the query (HTTP 400): parse error at char 5: ***'],
    ['other', `${host} answered JSON that is not a Prometheus query result`],
  ];
  for (const [m, want] of cases) assert.deepEqual(await ask(m), { ok: false, message: want }, m);
  const started = performance.now();
  assert.deepEqual(await ask('hang', 300), { ok: false, message: `${host} did not answer within 0.3 s` });
  assert.ok(performance.now() - started < 5000, 'the time limit ends a hanging answer');
  await server.close();
  const down = await ask('html');
  assert.ok(!down.ok && down.message.startsWith(`${host} unreachable: `), JSON.stringify(down));
  assert.deepEqual(await queryPrometheus({ address: 'ftp://x', query: 'up' }), {
    ok: false,
    message: 'address must be an http:// or https:// URL',
  });
});

describe('queryPrometheus over https', () => {
  const dir = useScratchDir('convoy-verify-tls-');
  test('the CA passed in is trusted; without it the certificate is refused', async (t) => {
    const files = { keyFile: join(dir(), 'key.pem'), certFile: join(dir(), 'cert.pem') };
    await selfSigned(files, '/CN=prometheus', 1, ['subjectAltName=IP:127.0.0.1']);
    const cert = await readFile(files.certFile, 'utf8');
    const server = await startServer((_req, res) => sendJson(res, 200, vector('1')), {
      key: await readFile(files.keyFile, 'utf8'),
      cert,
    });
    t.after(() => server.close());
    assert.deepEqual(await queryPrometheus({ address: server.url, query: 'up', caPem: cert }), {
      ok: true,
      value: [1],
    });
    const refused = await queryPrometheus({ address: server.url, query: 'up' });
    assert.ok(!refused.ok && /unreachable: .*certificate/.test(refused.message), JSON.stringify(refused));
  });
});
