// Table test of turning a watch ERROR event's Status into the one error type.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isGone } from './errors.ts';
import { watchEventError } from './transport.ts';

test('watchEventError: the Status of an ERROR event, marked as coming from the stream', () => {
  const info = { method: 'GET', path: '/api/v1/configmaps?watch=1&resourceVersion=5' };
  const rows: ReadonlyArray<readonly [string, Record<string, unknown>, number, string, boolean]> = [
    [
      'too old resource version',
      { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 5 (90)' },
      410,
      'Expired',
      true,
    ],
    ['410 without a reason', { kind: 'Status', code: 410 }, 410, 'Gone', true],
    [
      'internal error',
      { kind: 'Status', code: 500, reason: 'InternalError', message: 'x' },
      500,
      'InternalError',
      false,
    ],
    ['no code at all', { kind: 'Status', message: 'broken' }, 500, 'InternalError', false],
  ];
  for (const [what, status, code, reason, gone] of rows) {
    const err = watchEventError(status, info);
    assert.equal(err.code, code, what);
    assert.equal(err.reason, reason, what);
    assert.equal(err.origin, 'watch-event', what);
    assert.deepEqual(err.request, info, what);
    assert.equal(isGone(err), gone, what);
  }
});

test('a request to a server that accepts and never answers ends at its time limit', async () => {
  const { silentListener } = await import('../render/git/testsupport.ts');
  const { KubeConfig } = await import('@kubernetes/client-node');
  const { KubeTransport, RequestTimeoutError } = await import('./transport.ts');
  const silent = await silentListener();
  try {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${silent.port}`, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const started = Date.now();
    await assert.rejects(
      new KubeTransport(kc).request({ method: 'GET', path: '/api/v1/namespaces', timeoutMs: 300 }),
      (e: unknown) =>
        e instanceof RequestTimeoutError &&
        /GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces got no answer within 0.3s/.test(e.message),
    );
    assert.ok(Date.now() - started < 5000);
    // The caller's own signal still wins when it aborts first.
    const ac = new AbortController();
    const p = new KubeTransport(kc).request({
      method: 'GET',
      path: '/api',
      signal: ac.signal,
      timeoutMs: 60_000,
    });
    ac.abort(new Error('stop'));
    await assert.rejects(p, /stop/);
  } finally {
    await silent.close();
  }
});
