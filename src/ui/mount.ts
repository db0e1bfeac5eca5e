// The web UI inside a cluster, behind convoy's aggregated API (docs/ui.md#in-a-cluster): the API server
// authenticates the request (the front proxy's X-Remote-* identity, or a bearer token) and hands it
// here with its user. Each user (and scope: every namespace, or one) gets a session of their own — a
// UI app (app.ts) whose watches, reads and writes are made with a client that impersonates that user,
// so the page shows and does exactly what they may, as `convoy ui` does with their kubeconfig. Sessions
// nobody follows are closed after a while; their number is bounded.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../server/credentials.ts';
import type { UiHandler } from '../server/server.ts';
import type { UiPath } from '../server/ui-path.ts';
import { HttpError, json, startUiApp, type UiApp } from './app.ts';
import type { UiBackend } from './backend.ts';

export interface UiMountOptions {
  /**
   * The backend acting as `user`, its namespace `namespace` (the scope's, or where a user who may not
   * list every namespace is shown Releases).
   */
  backendFor(user: UserInfo, namespace: string): UiBackend;
  /** Close a session without open pages after this long unused (default 10 min). */
  readonly idleMs?: number;
  /** At most this many sessions at once (default 200); one more is refused with 503. */
  readonly maxSessions?: number;
  /** Where a cluster-wide session shows Releases when its user may not list every namespace. */
  readonly defaultNamespace?: string;
}

interface Session {
  readonly app: Promise<UiApp>;
  lastUsed: number;
}

const SWEEP_MS = 30_000;
const SYNC_WAIT_MS = 10_000;

export function uiMount(opts: UiMountOptions): UiHandler {
  const sessions = new Map<string, Session>();
  const idleMs = opts.idleMs ?? 10 * 60_000;
  const max = opts.maxSessions ?? 200;
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [key, s] of sessions) {
      if (now - s.lastUsed < idleMs) continue;
      void s.app.then(
        (app) => {
          if (app.streams > 0) return;
          sessions.delete(key);
          return app.close();
        },
        () => sessions.delete(key),
      );
    }
  }, SWEEP_MS);
  sweep.unref();

  const sessionOf = (user: UserInfo, namespace: string | undefined): Session => {
    const key = createHash('sha256')
      .update(JSON.stringify([user.username, user.uid, [...user.groups].sort(), user.extra, namespace]))
      .digest('hex');
    let s = sessions.get(key);
    if (s === undefined) {
      if (sessions.size >= max) throw new HttpError(503, `the web UI serves ${max} sessions already`);
      const backend = opts.backendFor(user, namespace ?? opts.defaultNamespace ?? 'default');
      // The first answer of a new session waits for its first LIST (bounded): else it would be empty.
      const app = startUiApp({ backend, allNamespaces: namespace === undefined }).then(async (a) => {
        await a.live.synced(SYNC_WAIT_MS);
        return a;
      });
      s = { app, lastUsed: Date.now() };
      sessions.set(key, s);
      // A session that cannot start (the API server away) is not kept: the next request tries again.
      app.catch(() => sessions.delete(key));
    }
    s.lastUsed = Date.now();
    return s;
  };

  return {
    async serve(req: IncomingMessage, res: ServerResponse, user: UserInfo, at: UiPath) {
      let app: UiApp | undefined;
      try {
        app = await sessionOf(user, at.namespace).app;
        const url = new URL(req.url ?? '/', 'http://ui.invalid');
        await app.handle(req, res, at.rest, url, at.root);
      } catch (err) {
        if (app !== undefined) return app.fail(res, err);
        if (err instanceof HttpError) return json(res, err.status, { error: err.message });
        throw err;
      }
    },
    async close() {
      clearInterval(sweep);
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(
        all.map((s) =>
          s.app.then(
            (a) => a.close(),
            () => undefined,
          ),
        ),
      );
    },
  };
}
