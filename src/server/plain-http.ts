// Plain HTTP sent to the API's TLS port (curl http://…:8443) used to get an empty reply: the TLS handshake
// fails and Node closes the socket without a word. OpenSSL recognises an HTTP request line
// (ERR_SSL_HTTP_REQUEST), so the raw socket under the failed TLS socket is still there to answer on:
// a plain 400 that says what to use instead.
import type { Server } from 'node:https';
import type { Socket } from 'node:net';

/** The answer a plain-HTTP client gets: a complete HTTP/1.1 response it can print. */
export function plainHttpAnswer(url: string): string {
  const body = `this port speaks HTTPS, not plain HTTP: use ${url}\n`;
  return [
    'HTTP/1.1 400 Bad Request',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Answers plain HTTP on `server`'s TLS port with plainHttpAnswer(url()) instead of closing silently. */
export function answerPlainHttp(server: Server, url: () => string): void {
  server.on('tlsClientError', (err: NodeJS.ErrnoException, tlsSocket) => {
    if (err.code !== 'ERR_SSL_HTTP_REQUEST') return;
    // The TCP socket the TLS socket wraps (not public API; src/server/plain-http.test.ts checks it holds).
    const raw = (tlsSocket as unknown as { _parent?: Socket })._parent;
    if (raw?.writable === true) raw.end(plainHttpAnswer(url()));
  });
}
