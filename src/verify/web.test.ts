import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sendJson, startServer } from './testsupport.ts';
import { callWeb } from './web.ts';

test('callWeb: method, headers and body sent; the jsonPath selects the result', async (t) => {
  const server = await startServer((req, res) => {
    if (req.url === '/measure') sendJson(res, 200, { data: { ok: true, successPercent: 0.95 } });
    else if (req.url === '/html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><body>Please log in</body></html>');
    } else if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ pad: 'x'.repeat(10 * 1024 * 1024) }));
    } else if (req.url === '/hang') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
    } else sendJson(res, 500, { error: 'boom' });
  });
  t.after(() => server.close());
  const host = new URL(server.url).host;
  const call = (path: string, more: Partial<Parameters<typeof callWeb>[0]> = {}) =>
    callWeb({ url: `${server.url}${path}`, method: 'GET', headers: {}, secrets: ['s3cr3t'], ...more });

  const ok = await call('/measure', {
    method: 'POST',
    headers: { authorization: 'Bearer s3cr3t', 'content-type': 'application/json' },
    body: '{"service":"checkout"}',
    jsonPath: '{$.data}',
  });
  assert.deepEqual(ok, { ok: true, value: { ok: true, successPercent: 0.95 } });
  assert.deepEqual(
    [server.seen[0]?.method, server.seen[0]?.headers.authorization, server.seen[0]?.body],
    ['POST', 'Bearer s3cr3t', '{"service":"checkout"}'],
  );
  assert.deepEqual(await call('/measure', { jsonPath: '$.data.ok' }), { ok: true, value: true });
  assert.deepEqual(await call('/measure'), { ok: true, value: { data: { ok: true, successPercent: 0.95 } } });

  const cases: [string, Partial<Parameters<typeof callWeb>[0]>, string][] = [
    ['/measure', { jsonPath: '$.data.nope' }, 'jsonPath $.data.nope matched nothing in the answer'],
    [
      '/measure',
      { jsonPath: '$..ok' },
      'jsonPath "$..ok": "..ok" is not supported (fields, [n] and [\'name\'] only)',
    ],
    ['/html', {}, `${host} answered HTTP 200 with an HTML page, not JSON (a login page or a proxy?)`],
    ['/big', {}, `${host} answered more than 1 MiB`],
    ['/boom', {}, `${host} answered HTTP 500`],
    ['/hang', { timeoutMs: 300 }, `${host} did not answer within 0.3 s`],
  ];
  for (const [path, more, want] of cases)
    assert.deepEqual(await call(path, more), { ok: false, message: want }, path);
  assert.deepEqual(await callWeb({ url: 'file:///etc/passwd', method: 'GET', headers: {}, secrets: [] }), {
    ok: false,
    message: 'url must be http:// or https://',
  });
});
