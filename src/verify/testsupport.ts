// A loopback HTTP server for the provider tests: each test says how a request is answered and reads
// what was sent. Real sockets, so timeouts, size caps and headers are exercised as in production.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface TestServer {
  readonly url: string;
  readonly seen: Seen[];
  close(): Promise<void>;
}

/** `tls`: serve https with this key and certificate (PEM). */
export async function startServer(
  answer: (req: Seen, res: http.ServerResponse) => void,
  tls?: { readonly key: string; readonly cert: string },
): Promise<TestServer> {
  const seen: Seen[] = [];
  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(s);
      answer(s, res);
    });
  };
  const server = tls ? https.createServer(tls, handle) : http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
