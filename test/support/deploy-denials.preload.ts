// Loaded into convoy's processes by test/e2e/deploy-rbac.test.ts (NODE_OPTIONS=--import=…): reports every
// HTTP 401/403 answer on stderr as one "CONVOY-DENIED <status> <METHOD> <url>" line. It only listens on
// Node's diagnostics channels — for undici (client-node's fetch) and for node:https (the harness's
// informers and leases) — so it sees denials the code under test swallows, and changes no request.
import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';

const report = (status: number | undefined, method: string | undefined, url: string) => {
  if (status === 401 || status === 403) process.stderr.write(`CONVOY-DENIED ${status} ${method} ${url}\n`);
};

subscribe('undici:request:headers', (message) => {
  const { request, response } = message as {
    request: { method?: string; origin?: string; path?: string };
    response: { statusCode?: number };
  };
  report(response.statusCode, request.method, `${request.origin ?? ''}${request.path ?? ''}`);
});

subscribe('http.client.response.finish', (message) => {
  const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
  report(response.statusCode, request.method, `${request.host}${request.path}`);
});
