// A counting proxy in front of Prometheus for bench:verification: every request the observer's checks send
// passes through it unchanged, and it counts the /api/v1/query calls by their query text, so the bench
// can say how many reach Prometheus and how many of them a fleet's shared queries cost.
import { createServer, request, type Server } from 'node:http';

export interface CountingProxy {
  /** "http://127.0.0.1:<port>": the address the checks name. */
  readonly url: string;
  /** /api/v1/query calls so far, by query text. */
  counts(): ReadonlyMap<string, number>;
  stop(): Promise<void>;
}

const UPSTREAM_TIMEOUT_MS = 15_000;
const MAX_BODY_BYTES = 1 << 20;

/** The `query` of an instant query, from its URL or its form body; undefined for another call. */
export function instantQueryText(path: string, body: string): string | undefined {
  const url = new URL(path, 'http://x');
  if (url.pathname !== '/api/v1/query') return undefined;
  return url.searchParams.get('query') ?? new URLSearchParams(body).get('query') ?? '';
}

export async function startCountingProxy(upstream: string): Promise<CountingProxy> {
  const counts = new Map<string, number>();
  const up = new URL(upstream);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) req.destroy(new Error('request body too large'));
      else chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const q = instantQueryText(req.url ?? '/', body.toString('utf8'));
      if (q !== undefined) counts.set(q, (counts.get(q) ?? 0) + 1);
      const out = request(
        {
          host: up.hostname,
          port: up.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: up.host },
          timeout: UPSTREAM_TIMEOUT_MS,
        },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      out.on('timeout', () => out.destroy(new Error('upstream timed out')));
      out.on('error', (err) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`proxy: ${err.message}\n`);
      });
      out.end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => new Map(counts),
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
