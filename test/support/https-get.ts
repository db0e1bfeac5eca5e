// A GET over node:https with a pinned CA, for e2e tests that call convoy's own port (the UI and the API
// behind it) rather than going through a KubeClient: the status and the whole body as text.
import { request as httpsRequest } from 'node:https';

export interface HttpsGetOptions {
  /** The PEM the server's certificate must chain to. */
  readonly ca: string;
  readonly headers?: Record<string, string>;
  readonly timeoutMs: number;
}

export function httpsGet(
  url: string,
  opts: HttpsGetOptions,
): Promise<{ status: number | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      { ca: opts.ca, headers: opts.headers ?? {}, timeout: opts.timeoutMs },
      (res) => {
        let body = '';
        res.on('data', (b: Buffer) => {
          body += b.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode, body }));
      },
    );
    req.once('timeout', () => req.destroy(new Error('timed out')));
    req.once('error', reject);
    req.end();
  });
}
