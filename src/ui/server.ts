// `convoy ui`'s web server: on 127.0.0.1 only, it serves the web UI (app.ts) acting with the user's
// kubeconfig. Because it acts with the user's credentials, nobody but that user's browser may call it:
// the URL it prints carries a random token that becomes an HttpOnly SameSite=Strict cookie; every
// request but the page's modules and styles needs it, a write also needs the X-Convoy-UI header (a
// cross-site form cannot send one; app.ts checks it) and a Host header naming this server (no DNS
// rebinding). In a cluster the same app is served behind convoy's aggregated API instead (mount.ts).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpError, startUiApp } from './app.ts';
import type { UiBackend } from './backend.ts';
import type { LiveState } from './live.ts';

const COOKIE = 'convoy-ui';

export interface UiServerOptions {
  readonly backend: UiBackend;
  /** Watch every namespace when the user may (default true). */
  readonly allNamespaces?: boolean;
  /** Default 0: a free port. Always on 127.0.0.1. */
  readonly port?: number;
}

export interface UiServer {
  /** http://127.0.0.1:<port>/?token=… : the address to open (it sets the session cookie). */
  readonly url: string;
  readonly port: number;
  readonly live: LiveState;
  close(): Promise<void>;
}

function cookieOf(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, v] = part.trim().split('=');
    if (k === COOKIE) return v;
  }
  return undefined;
}

const same = (a: string | undefined, b: string) =>
  a !== undefined && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export async function startUiServer(opts: UiServerOptions): Promise<UiServer> {
  const app = await startUiApp({
    backend: opts.backend,
    ...(opts.allNamespaces === undefined ? {} : { allNamespaces: opts.allNamespaces }),
  });
  const token = randomBytes(24).toString('base64url');
  let port = 0;
  const hosts = () => [`127.0.0.1:${port}`, `localhost:${port}`];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hosts().includes(req.headers.host ?? '')) throw new HttpError(421, 'wrong Host header');
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const path = url.pathname;
    // The modules and styles are the repository's own files: no session needed.
    if (path.startsWith('/vendor/') || path.startsWith('/static/'))
      return app.handle(req, res, path, url, '');
    const given = url.searchParams.get('token') ?? undefined;
    if (given !== undefined && same(given, token)) {
      url.searchParams.delete('token');
      res.writeHead(303, {
        'set-cookie': `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`,
        location: `${url.pathname}${url.search}`,
      });
      return void res.end();
    }
    if (!same(cookieOf(req), token)) {
      throw new HttpError(401, 'open the address convoy ui printed (it carries the session token)');
    }
    return app.handle(req, res, path, url, '');
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => app.fail(res, err));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    live: app.live,
    async close() {
      server.closeAllConnections();
      const closed = new Promise<void>((r) => server.close(() => r()));
      await app.close();
      await closed;
    },
  };
}
