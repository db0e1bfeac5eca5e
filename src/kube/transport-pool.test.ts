// The transport's connection pools, against a local HTTP server that holds every request until told:
// requests share at most MAX_REQUEST_CONNECTIONS connections (the rest wait for one), and a watch has a
// pool of its own, so requests waiting for a connection never keep a watch from starting.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { waitFor } from '../../test/support/wait.ts';
import { KubeTransport, MAX_REQUEST_CONNECTIONS } from './transport.ts';

test('requests share a bounded pool of connections; a watch is not queued behind them', async () => {
  const held: http.ServerResponse[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    if (req.url?.includes('watch=1')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'w' } } })}\n`);
      return;
    }
    held.push(res);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  const transport = new KubeTransport(kc);
  const stop = new AbortController();
  try {
    const n = 3 * MAX_REQUEST_CONNECTIONS;
    const answers = Array.from({ length: n }, (_, i) =>
      transport.request<{ i: number }>({
        method: 'GET',
        path: `/api/v1/namespaces/n${i}`,
        timeoutMs: 30_000,
      }),
    );
    await waitFor('the pool full of held requests', async () => held.length === MAX_REQUEST_CONNECTIONS);

    // every connection of the pool is busy: the watch starts all the same, on a connection of its own
    const events: string[] = [];
    const watching = transport
      .watch({ path: '/api/v1/configmaps?watch=1', signal: stop.signal, idleMs: 30_000 }, (e) =>
        events.push(e.type),
      )
      .then(
        () => new Error('the watch ended before it was stopped'),
        (err: unknown) => err,
      );
    await waitFor('the watch event', async () => events.length > 0);
    assert.equal(held.length, MAX_REQUEST_CONNECTIONS, 'the other requests wait for a connection');
    assert.equal(connections, MAX_REQUEST_CONNECTIONS + 1);

    // answered one by one, the waiting requests go out on the pool's connections, none opened anew
    let answered = 0;
    await waitFor(
      'every request answered',
      async () => {
        for (const res of held.splice(0)) res.end(JSON.stringify({ i: answered++ }));
        return answered === n;
      },
      { timeoutMs: 30_000 },
    );
    assert.equal((await Promise.all(answers)).length, n);
    assert.equal(connections, MAX_REQUEST_CONNECTIONS + 1, 'keep-alive: no connection beyond the bound');
    const stopped = new Error('done');
    stop.abort(stopped);
    assert.equal(await watching, stopped, 'the watch ends with the stop, not an error of its own');
  } finally {
    stop.abort(new Error('done'));
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
