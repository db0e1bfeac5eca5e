// The web UI as a request handler, without any notion of who may call it: the pages (src/ui/web, with
// Preact and htm as ES modules straight from node_modules: no build step) and a small JSON API over
// what the watches of live.ts hold and what the backend answers. Two front doors use it: `convoy ui`'s
// server on 127.0.0.1 (server.ts: a session token) and convoy's aggregated API in a cluster (mount.ts:
// the front proxy's identity). Each serves it under its own root path, which the pages are told.
// Reads beyond the watches (a Release's resource tree, a live object, history, diffs, logs) go through
// the user's client, so a page reads exactly what its user may.
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isKubeError } from '../kube/errors.ts';
import { forbidden, type Outcome, parseAction } from './actions.ts';
import type { UiBackend } from './backend.ts';
import { EventHub } from './events.ts';
import { LiveState } from './live.ts';
import { DEFAULT_LEASE_NAMESPACE } from './liveness.ts';
import { clusterRow, releaseKey, releaseSetRow } from './model.ts';
import { permissionsFor } from './permissions.ts';
import { DEFAULT_TAIL_LINES, MAX_TAIL_LINES, readPodLogs } from './pod-logs.ts';
import { readLiveObject, readTree } from './tree-read.ts';

const WEB = fileURLToPath(new URL('./web/', import.meta.url));
/** The repository's docs, linked from the empty pages: served as plain text, one flat folder. */
const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const DOC_NAME = /^[a-z0-9-]+\.md$/;
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
  '.md': 'text/plain; charset=utf-8',
};
const MAX_BODY = 16 * 1024;
/** A root path the pages may be given: absolute, URL-safe characters only, no trailing slash. */
const ROOT = /^(\/[A-Za-z0-9._-]+)*$/;

export class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export function json(res: ServerResponse, status: number, body: unknown): void {
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

export interface UiAppOptions {
  readonly backend: UiBackend;
  /** Watch every namespace when the user may (default true); else the backend's namespace. */
  readonly allNamespaces?: boolean;
  /** Where convoy's processes keep their shard Leases (default convoy-system, as their --lease-namespace). */
  readonly leaseNamespace?: string;
}

export interface UiApp {
  readonly live: LiveState;
  /**
   * Answers one request. `path` is the part after `root` ('/' at least); `root` is where the app is
   * mounted ('' for `convoy ui`), so its pages link and fetch under it.
   */
  handle(req: IncomingMessage, res: ServerResponse, path: string, url: URL, root: string): Promise<void>;
  /** Answers a failure thrown by handle (or by the front door) as JSON. */
  fail(res: ServerResponse, err: unknown): void;
  /** Open event streams: a session with none may be closed when idle. */
  readonly streams: number;
  close(): Promise<void>;
}

export async function startUiApp(opts: UiAppOptions): Promise<UiApp> {
  const { backend } = opts;
  const live = await LiveState.start(
    backend.client,
    backend.namespace,
    opts.allNamespaces ?? true,
    opts.leaseNamespace ?? DEFAULT_LEASE_NAMESPACE,
  );
  const hub = new EventHub(live);

  const sendFile = async (res: ServerResponse, file: string) => {
    const ext = file.slice(file.lastIndexOf('.'));
    const body = await readFile(file);
    res.writeHead(200, {
      'content-type': TYPES[ext] ?? 'application/octet-stream',
      'cache-control': 'no-cache',
    });
    res.end(body);
  };

  const sendPage = async (res: ServerResponse, root: string) => {
    if (!ROOT.test(root)) throw new HttpError(500, `UI root ${JSON.stringify(root)} is not a plain path`);
    const page = (await readFile(join(WEB, 'index.html'), 'utf8'))
      .replace('data-root=""', `data-root="${root}"`)
      .replaceAll('"/static/', `"${root}/static/`)
      .replaceAll('"/vendor/', `"${root}/vendor/`);
    res.writeHead(200, { 'content-type': TYPES['.html'] ?? '', 'cache-control': 'no-cache' });
    res.end(page);
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

  async function api(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<void> {
    const parts = path.split('/').slice(2).map(decodeURIComponent);
    const [top, ns, name, sub, arg, more] = parts;
    if (req.method === 'GET' && top === 'session' && ns === undefined) {
      return json(res, 200, { scope: live.scope, problems: live.problems(), liveness: hub.liveness() });
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
    if (top !== 'releases') throw new HttpError(404, `no such API path ${path}`);
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
    if (req.method === 'GET' && sub === 'permissions') {
      try {
        return json(res, 200, await permissionsFor(backend.client, ns, name));
      } catch (err) {
        return readFailure(res, err, ns, 'permissions');
      }
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
    if (req.method === 'GET' && sub === 'tree' && arg === undefined) {
      // The render's objects and their live descendants, read as this user (tree-read.ts).
      const r = releaseOf(ns, name);
      return json(res, 200, await readTree(backend.client, r, live.inventory(releaseKey(ns, name))));
    }
    if (req.method === 'GET' && sub === 'live' && arg === undefined) {
      // One node of the tree: its manifest (masked) and Events, as this user.
      releaseOf(ns, name);
      const q = (k: string) => {
        const v = url.searchParams.get(k) ?? '';
        if (v.length > 253) throw new HttpError(400, `${k}: longer than 253 characters`);
        return v;
      };
      const ref = {
        apiVersion: q('apiVersion'),
        kind: q('kind'),
        namespace: q('namespace'),
        name: q('name'),
      };
      if (ref.apiVersion === '' || ref.kind === '' || ref.name === '') {
        throw new HttpError(400, 'apiVersion, kind and name are required');
      }
      try {
        const got = await readLiveObject(backend.client, live.inventory(releaseKey(ns, name)), ref);
        if (got.kind !== 'found') throw new HttpError(404, got.message);
        return json(res, 200, { ...got.view, notes: got.notes });
      } catch (err) {
        if (err instanceof HttpError) throw err;
        return readFailure(res, err, ns, 'live object');
      }
    }
    if (req.method === 'GET' && sub === 'podlogs' && arg === undefined) {
      // The log of a container of a Pod of the tree, as this user (pod-logs.ts); the page re-reads it to follow.
      releaseOf(ns, name);
      const tail = Number(url.searchParams.get('tailLines') ?? DEFAULT_TAIL_LINES);
      if (!Number.isInteger(tail) || tail < 1 || tail > MAX_TAIL_LINES)
        throw new HttpError(400, `tailLines: a whole number from 1 to ${MAX_TAIL_LINES}`);
      const namespace = url.searchParams.get('namespace') ?? '';
      const pod = url.searchParams.get('pod') ?? '';
      const container = url.searchParams.get('container') ?? '';
      if (pod === '' || namespace === '') throw new HttpError(400, 'namespace and pod are required');
      if ([namespace, pod, container].some((v) => v.length > 253))
        throw new HttpError(400, 'namespace, pod and container: at most 253 characters each');
      try {
        const got = await readPodLogs(backend.client, live.inventory(key), {
          namespace,
          name: pod,
          ...(container === '' ? {} : { container }),
          tailLines: tail,
        });
        if (got.kind === 'notFound') throw new HttpError(404, got.message);
        if (got.kind === 'badRequest') throw new HttpError(400, got.message);
        return json(res, 200, got.logs);
      } catch (err) {
        if (err instanceof HttpError) throw err;
        return readFailure(res, err, ns, 'logs');
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
    throw new HttpError(404, `no such API path ${path}`);
  }

  return {
    live,
    get streams() {
      return hub.streams;
    },
    async handle(req, res, path, url, root) {
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
      if (path.startsWith('/docs/')) {
        const name = path.slice('/docs/'.length);
        if (!DOC_NAME.test(name)) throw new HttpError(404, `no such page ${path}`);
        return sendFile(res, join(DOCS, name));
      }
      if (path.startsWith('/api/')) {
        // A cross-site form or image cannot send this header (it would need a CORS preflight).
        if (req.method !== 'GET' && req.headers['x-convoy-ui'] !== '1') {
          throw new HttpError(403, 'a write needs the X-Convoy-UI header');
        }
        return api(req, res, path, url);
      }
      if (req.method !== 'GET') throw new HttpError(405, 'GET only');
      // Every other path is a page of the single-page app.
      return sendPage(res, root);
    },
    fail(res, err) {
      if (res.headersSent) {
        res.destroy(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      if (err instanceof HttpError) json(res, err.status, { error: err.message });
      else if ((err as { code?: unknown }).code === 'ENOENT') json(res, 404, { error: 'no such file' });
      else json(res, 500, { error: backend.describeError(err) });
    },
    async close() {
      hub.close();
      await live.stop();
    },
  };
}
