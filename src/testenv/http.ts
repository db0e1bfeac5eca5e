// The few raw HTTP calls the control plane makes while starting (readiness probes, Node
// objects): plain node:http(s) with the cluster's CA and admin token, one connection per
// call so nothing lingers and keeps a test process alive.
import http from 'node:http';
import https from 'node:https';

export interface Endpoint {
  /** http://… or https://… without a trailing slash. */
  readonly server: string;
  readonly caPem?: string;
  readonly token?: string;
  /** Skip TLS verification: only while waiting for a serving cert we have not read yet. */
  readonly insecure?: boolean;
}

export interface HttpResponse {
  readonly status: number;
  readonly body: string;
}

export function request(
  ep: Endpoint,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 5000,
): Promise<HttpResponse> {
  const url = new URL(path, ep.server);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (ep.token) headers.authorization = `Bearer ${ep.token}`;
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const options = { method, headers, timeout: timeoutMs, agent: false as const };
    const req =
      url.protocol === 'https:'
        ? https.request(url, { ...options, ca: ep.caPem, rejectUnauthorized: !ep.insecure }, onResponse)
        : http.request(url, options, onResponse);
    function onResponse(res: http.IncomingMessage) {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    }
    req.on('timeout', () => req.destroy(new Error(`${method} ${url} timed out after ${timeoutMs}ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}
