// Helpers of the notification e2e tests: an HTTP server on loopback that plays a webhook, Slack or a git
// host's status API — it records every request convoy sends (method, URL, headers, body, local arrival
// time) and answers 201; stop() and start() keep its port, so a test can take a provider down and bring
// it back — Provider, Alert and Receiver objects, and the generic webhook's messages of one namespace.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_VERSION } from '../../src/api/constants.ts';
import type { Alert, Provider, Receiver } from '../../src/api/types.ts';

export interface Captured {
  readonly at: number;
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** An HTTP server on loopback that records every request and answers 201; stop()/start() keep the port. */
export async function captureServer() {
  const seen: Captured[] = [];
  let server: Server | undefined;
  let port = 0;
  const start = async () => {
    const s = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({
          at: Date.now(),
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(201, { 'Content-Type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    port = (s.address() as AddressInfo).port;
    server = s;
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      if (server === undefined) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
      server = undefined;
    });
  await start();
  return {
    seen,
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    start,
    stop,
  };
}

export function provider(ns: string, name: string, spec: Provider['spec']): Provider {
  return { apiVersion: API_VERSION, kind: 'Provider', metadata: { namespace: ns, name }, spec };
}

export function alert(ns: string, name: string, spec: Alert['spec']): Alert {
  return { apiVersion: API_VERSION, kind: 'Alert', metadata: { namespace: ns, name }, spec };
}

export function receiver(ns: string, name: string, spec: Receiver['spec']): Receiver {
  return { apiVersion: API_VERSION, kind: 'Receiver', metadata: { namespace: ns, name }, spec };
}

export type Notification = {
  release: { namespace: string; name: string };
  event: string;
  renderRef?: string;
  targetRenderRef?: string;
  reason: string;
  message: string;
};

export const messages = (seen: readonly Captured[], ns: string) =>
  seen
    .filter((c) => c.url === '/hook')
    .map((c) => JSON.parse(c.body) as Notification)
    .filter((n) => n.release.namespace === ns);
