// The probe server binds loopback by default and every interface when told (as in a pod, where the
// kubelet probes the pod IP); /healthz, /readyz and /metrics answer on it.
import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { startProbeServer } from './server.ts';

/** A non-loopback IPv4 address of this host (the kubelet's view of a pod), if it has one. */
function externalIPv4(): string | undefined {
  for (const addrs of Object.values(networkInterfaces()))
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

const reachable = async (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    (r) => r.status,
    () => 'unreachable' as const,
  );

test('default: loopback only', async () => {
  const s = await startProbeServer({ registry: new Registry(), notReady: () => [] }, 0);
  try {
    assert.equal(s.address, `127.0.0.1:${s.port}`);
    assert.equal(await reachable(`http://127.0.0.1:${s.port}/healthz`), 200);
    const ip = externalIPv4();
    if (ip !== undefined) assert.equal(await reachable(`http://${ip}:${s.port}/healthz`), 'unreachable');
  } finally {
    await s.close();
  }
});

test('0.0.0.0: every interface, probes and metrics answer', async () => {
  let failing: string[] = ['informer /api/v1/pods'];
  const registry = new Registry();
  const s = await startProbeServer({ registry, notReady: () => failing }, 0, '0.0.0.0');
  try {
    assert.equal(s.address, `0.0.0.0:${s.port}`);
    const base = `http://${externalIPv4() ?? '127.0.0.1'}:${s.port}`;
    assert.equal(await reachable(`${base}/healthz`), 200);
    const notReady = await fetch(`${base}/readyz`);
    assert.equal(notReady.status, 503);
    assert.match(await notReady.text(), /informer \/api\/v1\/pods/);
    failing = [];
    assert.equal(await reachable(`${base}/readyz`), 200);
    assert.equal(await reachable(`${base}/metrics`), 200);
    assert.equal(await reachable(`${base}/nope`), 404);
  } finally {
    await s.close();
  }
});
