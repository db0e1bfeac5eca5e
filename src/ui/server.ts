// `convoy ui`'s web server: on 127.0.0.1 only, it serves the pages (src/ui/web, with Preact and htm as
// ES modules straight from node_modules: no build step) and a small JSON API over what the watches of
// live.ts hold and what the backend (the CLI's reads and writes, with the user's kubeconfig) answers.
// Because it acts with the user's credentials, nobody but that user's browser may call it: the URL it
// prints carries a random token that becomes an HttpOnly SameSite=Strict cookie; every API call needs
// it, a write also needs the X-Convoy-UI header (a cross-site form cannot send one) and a Host header
// naming this server (no DNS rebinding).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isKubeError } from '../kube/errors.ts';
import { forbidden, type Outcome, parseAction } from './actions.ts';
import type { UiBackend } from './backend.ts';
import { EventHub } from './events.ts';
import { LiveState } from './live.ts';
import { clusterRow, releaseKey, releaseSetRow } from './model.ts';

const WEB = fileURLToPath(new URL('./web/', import.meta.url));
const require = createRequire(import.meta.url);
/** The browser's modules, by the name the import map gives them (their ES module builds). */
const VENDOR: Readonly<Record<string, () => string>> = {
  'preact.mjs': () => require.resolve('preact'),
  'hooks.mjs': () => require.resolve('preact/hooks'),
  // htm's CommonJS entry sits beside its ES module build
  'htm.mjs': () => join(dirname(require.resolve('htm')), 'htm.mjs'),
};
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
const COOKIE = 'convoy-ui';
const MAX_BODY = 16 * 1024;

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

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, `body over ${MAX_BODY} bytes`);
    chunks.push(c as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    throw new HttpError(400, 'body: not valid JSON');
  }
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
  const { backend } = opts;
  const live = await LiveState.start(backend.client, backend.namespace, opts.allNamespaces ?? true);
  const hub = new EventHub(live);
  const token = randomBytes(24).toString('base64url');
  let port = 0;
  const hosts = () => [`127.0.0.1:${port}`, `localhost:${port}`];

  const sendFile = async (res: ServerResponse, file: string) => {
    const ext = file.slice(file.lastIndexOf('.'));
    const body = await readFile(file);
    res.writeHead(200, {
      'content-type': TYPES[ext] ?? 'application/octet-stream',
      'cache-control': 'no-cache',
    });
    res.end(body);
  };

  const releaseOf = (ns: string, name: string) => {
    const r = live.release(releaseKey(ns, name));
    if (r === undefined) throw new HttpError(404, `release "${name}" not found in namespace "${ns}"`);
    return r;
  };

  /** A backend read's failure: 403 as the permission it lacks, others in the CLI's words. */
  const readFailure = (res: ServerResponse, err: unknown, ns: string, what: string) => {
    if (isKubeError(err) && err.code === 403) {
      json(res, 403, { error: `forbidden: ${err.apiMessage}`, what, namespace: ns });
    } else json(res, 502, { error: backend.describeError(err), what });
  };

  async function api(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const parts = url.pathname.split('/').slice(2).map(decodeURIComponent);
    const [top, ns, name, sub, arg, more] = parts;
    if (req.method === 'GET' && top === 'session' && ns === undefined) {
      return json(res, 200, { scope: live.scope, problems: live.problems() });
    }
    if (req.method === 'GET' && top === 'events' && ns === undefined) {
      return hub.subscribe(res, url.searchParams.get('release') ?? undefined);
    }
    if (req.method === 'GET' && top === 'clusters' && ns === undefined) {
      return json(res, 200, {
        clusters: live.clusters.cache.list().map(clusterRow),
        problems: live.problems().filter((p) => p.kind === 'Cluster'),
      });
    }
    if (req.method === 'GET' && top === 'releasesets' && ns === undefined) {
      return json(res, 200, {
        sets: (live.releaseSets?.cache.list() ?? []).map(releaseSetRow),
        problems: live.problems().filter((p) => p.kind === 'ReleaseSet'),
      });
    }
    if (top !== 'releases') throw new HttpError(404, `no such API path ${url.pathname}`);
    if (ns === undefined) {
      if (req.method !== 'GET') throw new HttpError(405, 'GET only');
      const problems = live.problems().filter((p) => p.kind === 'Release' || p.kind === 'ReleaseInventory');
      return json(res, 200, { scope: live.scope, rows: hub.rows(), problems });
    }
    if (name === undefined) throw new HttpError(404, 'a release path is /api/releases/NAMESPACE/NAME');
    const key = releaseKey(ns, name);
    if (req.method === 'GET' && sub === undefined) {
      const d = hub.detail(key);
      if (d === undefined) throw new HttpError(404, `release "${name}" not found in namespace "${ns}"`);
      return json(res, 200, d);
    }
    if (req.method === 'GET' && sub === 'history') {
      try {
        return json(res, 200, await backend.history(ns, releaseOf(ns, name)));
      } catch (err) {
        if (err instanceof HttpError) throw err;
        return readFailure(res, err, ns, 'history');
      }
    }
    if (req.method === 'GET' && sub === 'diff') {
      try {
        return json(res, 200, await backend.diff(ns, name, url.searchParams.get('render') ?? undefined));
      } catch (err) {
        return readFailure(res, err, ns, 'diff');
      }
    }
    if (req.method === 'GET' && sub === 'renders' && arg !== undefined) {
      try {
        const r = await backend.render(ns, name, arg);
        if (r === undefined) throw new HttpError(404, `render ${arg} is not in the render store of ${key}`);
        return json(res, 200, r);
      } catch (err) {
        if (err instanceof HttpError) throw err;
        return readFailure(res, err, ns, 'render');
      }
    }
    if (req.method === 'GET' && sub === 'hooks' && arg !== undefined && more === 'logs') {
      try {
        return json(res, 200, { lines: await backend.logs(ns, name, arg) });
      } catch (err) {
        return readFailure(res, err, ns, 'logs');
      }
    }
    if (req.method === 'POST' && sub === 'actions') {
      const parsed = parseAction(await readBody(req));
      if (!parsed.ok) throw new HttpError(400, parsed.message);
      let outcome: Outcome;
      try {
        outcome = { kind: 'done', lines: await backend.act(ns, name, parsed.action) };
      } catch (err) {
        outcome =
          isKubeError(err) && err.code === 403
            ? forbidden(parsed.action.kind, ns, err.apiMessage)
            : { kind: 'failed', message: backend.describeError(err) };
      }
      return json(res, outcome.kind === 'done' ? 200 : outcome.kind === 'forbidden' ? 403 : 422, outcome);
    }
    throw new HttpError(404, `no such API path ${url.pathname}`);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hosts().includes(req.headers.host ?? '')) throw new HttpError(421, 'wrong Host header');
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const path = url.pathname;
    if (path.startsWith('/vendor/')) {
      const file = VENDOR[path.slice('/vendor/'.length)];
      if (file === undefined) throw new HttpError(404, `no such module ${path}`);
      return sendFile(res, file());
    }
    if (path.startsWith('/static/')) {
      const rel = normalize(path.slice('/static/'.length));
      if (rel.startsWith('..') || rel.includes('/..')) throw new HttpError(404, 'no such file');
      return sendFile(res, join(WEB, rel));
    }
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
    if (path.startsWith('/api/')) {
      if (req.method !== 'GET' && req.headers['x-convoy-ui'] !== '1') {
        throw new HttpError(403, 'a write needs the X-Convoy-UI header');
      }
      return api(req, res, url);
    }
    if (req.method !== 'GET') throw new HttpError(405, 'GET only');
    // Every other path is a page of the single-page app.
    return sendFile(res, join(WEB, 'index.html'));
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      if (err instanceof HttpError) json(res, err.status, { error: err.message });
      else if ((err as { code?: unknown }).code === 'ENOENT') json(res, 404, { error: 'no such file' });
      else json(res, 500, { error: backend.describeError(err) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    live,
    async close() {
      hub.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await live.stop();
    },
  };
}
