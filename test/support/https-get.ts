// A GET over node:https with a pinned CA, for e2e tests that call convoy's own port (the UI and the API
// behind it) rather than going through a KubeClient: the status and the whole body as text. The reading
// of the answer (responseText) serves any node:http or node:https request a test sends.
import type { ClientRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpsGetOptions {
  /** The PEM the server's certificate must chain to. */
  readonly ca: string;
  readonly headers?: Record<string, string>;
  readonly timeoutMs: number;
}

export interface TextResponse {
  readonly status: number | undefined;
  readonly body: string;
}

export function httpsGet(url: string, opts: HttpsGetOptions): Promise<TextResponse> {
  return responseText((onResponse) =>
    httpsRequest(url, { ca: opts.ca, headers: opts.headers ?? {}, timeout: opts.timeoutMs }, onResponse),
  );
}

/**
 * Sends the request `send` builds (give it a `timeout`: it ends the request with an error) and answers
 * the status and the whole body as text.
 */
export function responseText(
  send: (onResponse: (res: IncomingMessage) => void) => ClientRequest,
): Promise<TextResponse> {
  return new Promise((resolve, reject) => {
    const req = send((res) => {
      let body = '';
      res.on('data', (b: Buffer) => {
        body += b.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.once('timeout', () => req.destroy(new Error('timed out')));
    req.once('error', reject);
    req.end();
  });
}
