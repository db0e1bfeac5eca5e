// One HTTP port for /metrics, /healthz (the process is up) and /readyz (every informer synced).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export type Probes = {
  readonly registry: Registry;
  /** Names of the checks that fail; empty means ready. */
  readonly notReady: () => readonly string[];
};

export type ProbeServer = { readonly port: number; close(): Promise<void> };

export async function startProbeServer(
  probes: Probes,
  port: number,
  host = '127.0.0.1',
): Promise<ProbeServer> {
  const server = http.createServer((req, res) => {
    void handle(probes, req.url ?? '/', res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
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
