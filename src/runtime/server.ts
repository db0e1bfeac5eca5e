// One HTTP port for /metrics, /healthz (the process is up) and /readyz (every informer synced). It binds
// loopback unless told otherwise: plain HTTP with no authentication is for this host, or, in a pod, for
// the kubelet's probes and Prometheus (bind 0.0.0.0 there; the pod network is the boundary).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export type Probes = {
  readonly registry: Registry;
  /** Names of the checks that fail; empty means ready. */
  readonly notReady: () => readonly string[];
};

export type ProbeServer = {
  readonly port: number;
  /** host:port as bound ([v6]:port for IPv6). */
  readonly address: string;
  close(): Promise<void>;
};

export const DEFAULT_PROBE_HOST = '127.0.0.1';

export async function startProbeServer(
  probes: Probes,
  port: number,
  host: string = DEFAULT_PROBE_HOST,
): Promise<ProbeServer> {
  const server = http.createServer((req, res) => {
    void handle(probes, req.url ?? '/', res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  return {
    port: bound.port,
    address: bound.family === 'IPv6' ? `[${bound.address}]:${bound.port}` : `${bound.address}:${bound.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(probes: Probes, url: string, res: http.ServerResponse): Promise<void> {
  const path = url.split('?')[0];
  try {
    if (path === '/metrics') {
      const body = await probes.registry.metrics();
      res.writeHead(200, { 'content-type': probes.registry.contentType }).end(body);
    } else if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
    } else if (path === '/readyz') {
      const failing = probes.notReady();
      if (failing.length === 0) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      else res.writeHead(503, { 'content-type': 'text/plain' }).end(`not ready: ${failing.join(', ')}\n`);
    } else {
      res.writeHead(404).end();
    }
  } catch (e) {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(String(e));
  }
}
