// POST /hook/{namespace}/{receiver}: push webhooks from GitHub, GitLab or anything that signs like
// convoy's generic receiver. Not authenticated by Kubernetes (a git host has no credentials there) but
// by the Receiver's token: rate-limited first, the body bounded and read within a time limit, then the
// Receiver and its Secret read, the signature checked (401, nothing written, when it does not match),
// and a sync requested — through the same write as POST …/sync — of every Release of the namespace that
// follows the pushed repository and branch (and that spec.releases selects). 202 names them; a push
// nothing follows gets 200 and an empty list (pushes to other branches are normal, not an error). A
// delivery accepted before (deliveries.ts) gets 200 "ignored: already delivered" and writes nothing;
// pushes to one Release at once share their writes (coalesce.ts); a write that kept meeting 409
// conflicts says so rather than blaming the API's reachability.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { API_VERSION as CRD_API_VERSION } from '../api/constants.ts';
import type { Receiver, Release } from '../api/types.ts';
import type { KubeClient } from '../kube/client.ts';
import { isConflict, isKubeError } from '../kube/errors.ts';
import { nameOf } from '../lib/names.ts';
import { selectionMatches } from '../lib/selector.ts';
import { Coalescer } from './coalesce.ts';
import { DEFAULT_DELIVERIES, Deliveries } from './deliveries.ts';
import { RateLimiter } from './rate-limit.ts';
import { followsPush, verifyPush } from './receiver.ts';
import { type EventSink, writeSync } from './sync-write.ts';

export const HOOK_PREFIX = '/hook/';
/** A push payload larger than this gets 413 (GitHub's pushes of a few commits are a few KiB). */
export const MAX_HOOK_BODY_BYTES = 1024 * 1024;
/** The whole body must arrive within this. */
const BODY_TIMEOUT_MS = 10_000;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export interface HookDeps {
  readonly client: KubeClient;
  /** Where the Event naming the push goes (sync-write.ts); unset: none. */
  readonly events?: EventSink;
  readonly now: () => Date;
  readonly log: Logger | undefined;
  /** Counts each answer (route "hook"). */
  readonly count?: (code: number) => void;
  readonly limiter?: RateLimiter;
  readonly maxBodyBytes?: number;
  /** The deliveries remembered against replays (default: DEFAULT_DELIVERIES on `now`). */
  readonly deliveries?: Deliveries;
}

interface Answer {
  readonly code: 200 | 202 | 400 | 401 | 404 | 405 | 413 | 429 | 500 | 503;
  readonly body: Record<string, unknown>;
  readonly headers?: Readonly<Record<string, string>>;
}

const fail = (code: Answer['code'], message: string, headers?: Record<string, string>): Answer => ({
  code,
  body: { status: 'Failure', code, message },
  ...(headers === undefined ? {} : { headers }),
});

export class HookHandler {
  readonly #d: HookDeps;
  readonly #limiter: RateLimiter;
  readonly #deliveries: Deliveries;
  readonly #writes = new Coalescer<Awaited<ReturnType<typeof writeSync>>>();

  constructor(deps: HookDeps) {
    this.#d = deps;
    this.#deliveries =
      deps.deliveries ?? new Deliveries({ ...DEFAULT_DELIVERIES, now: () => deps.now().getTime() });
    this.#limiter =
      deps.limiter ??
      new RateLimiter({ burst: 20, ratePerSecond: 5, globalBurst: 100, globalRatePerSecond: 50 });
  }

  static matches(url: string | undefined): boolean {
    return (url ?? '').startsWith(HOOK_PREFIX);
  }

  async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let answer: Answer;
    try {
      answer = await this.#answer(req);
    } catch (err) {
      this.#d.log?.error({ err: String(err), url: req.url }, 'push webhook failed');
      answer = failureAnswer(err);
    }
    this.#d.count?.(answer.code);
    // Whatever is left of a refused body is read and thrown away, so the client gets the answer.
    req.resume();
    res.writeHead(answer.code, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-store',
      ...answer.headers,
    });
    res.end(`${JSON.stringify(answer.body)}\n`);
  }

  async #answer(req: IncomingMessage): Promise<Answer> {
    const path = (req.url ?? '').split('?', 1)[0] ?? '';
    const seg = path.slice(HOOK_PREFIX.length).split('/');
    const [namespace, name] = seg;
    if (seg.length !== 2 || namespace === undefined || name === undefined) {
      return fail(404, `no receiver at ${path}: the path is /hook/<namespace>/<receiver>`);
    }
    if (
      !DNS_LABEL.test(namespace) ||
      namespace.length > 63 ||
      !DNS_SUBDOMAIN.test(name) ||
      name.length > 253
    ) {
      return fail(404, `no receiver at ${path}`);
    }
    if (req.method !== 'POST') return fail(405, `use POST on ${path}`, { Allow: 'POST' });
    if (!this.#limiter.take(`${namespace}/${name}`)) {
      return fail(429, 'too many requests for this receiver; retry later', { 'Retry-After': '1' });
    }
    const body = await readBounded(req, this.#d.maxBodyBytes ?? MAX_HOOK_BODY_BYTES);
    if (body.kind === 'tooLarge') return fail(413, `request body over ${body.limit} bytes`);
    if (body.kind === 'timeout')
      return fail(400, `the request body did not arrive within ${BODY_TIMEOUT_MS} ms`);

    const { client } = this.#d;
    const receiver = await client.get<Receiver>({
      apiVersion: CRD_API_VERSION,
      kind: 'Receiver',
      namespace,
      name,
    });
    if (receiver === undefined) return fail(404, `receiver ${namespace}/${name} not found`);
    if (receiver.spec.suspend === true) return fail(503, `receiver ${namespace}/${name} is suspended`);
    const secretName = receiver.spec.secretRef.name;
    const secret = await client.get<{ data?: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace,
      name: secretName,
    });
    const token64 = secret?.data?.token;
    if (token64 === undefined) {
      this.#d.log?.warn(
        { receiver: `${namespace}/${name}`, secret: secretName },
        'receiver Secret or its key "token" missing',
      );
      return fail(
        503,
        `receiver ${namespace}/${name} cannot verify pushes: Secret ${secretName} with key "token" not found`,
      );
    }
    const token = Buffer.from(token64, 'base64').toString('utf8').trim();
    const v = verifyPush(receiver.spec.type, token, req.headers, body.bytes, this.#d.now().getTime());
    switch (v.kind) {
      case 'unauthorized':
        this.#d.log?.warn({ receiver: `${namespace}/${name}`, why: v.why }, 'push refused');
        return fail(401, v.why);
      case 'invalid':
        return fail(400, v.why);
      case 'ignored':
        return { code: 200, body: { status: 'Success', message: `ignored: ${v.why}`, releases: [] } };
      case 'push':
        break;
    }
    const keys = v.deliveryKeys.map((k) => `${namespace}/${name}/${k}`);
    if (this.#deliveries.replayed(keys)) {
      const id = v.deliveryIdFrom === undefined ? 'this body' : `this ${v.deliveryIdFrom}`;
      this.#d.log?.warn({ receiver: `${namespace}/${name}` }, 'replayed push ignored');
      return {
        code: 200,
        body: { status: 'Success', message: `ignored: already delivered (${id})`, releases: [] },
      };
    }
    let synced: string[];
    try {
      synced = await this.#sync(namespace, name, receiver, v);
    } catch (err) {
      // Not delivered: the host's retry of it is not a replay.
      this.#deliveries.release(keys);
      throw err;
    }
    this.#d.log?.info(
      { receiver: `${namespace}/${name}`, branch: v.branch, repositories: v.repositories, releases: synced },
      'push received',
    );
    if (synced.length === 0) {
      return {
        code: 200,
        body: {
          status: 'Success',
          message: `no Release of ${namespace} follows branch ${v.branch} of this repository`,
          releases: [],
        },
      };
    }
    return {
      code: 202,
      body: {
        status: 'Success',
        message: `sync requested for ${synced.length} Release(s)`,
        releases: synced,
      },
    };
  }

  /** Requests a sync of each Release that follows the push; the names of those requested. */
  async #sync(
    namespace: string,
    name: string,
    receiver: Receiver,
    v: Extract<ReturnType<typeof verifyPush>, { kind: 'push' }>,
  ): Promise<string[]> {
    const { client } = this.#d;
    const releases = await client.list<Release>({ apiVersion: CRD_API_VERSION, kind: 'Release', namespace });
    const following = releases
      .filter((r) => r.metadata.deletionTimestamp === undefined)
      .filter((r) => followsPush(r, v))
      .filter((r) => selectionMatches(receiver.spec.releases, r.metadata.name, r.metadata.labels))
      .map((r) => nameOf(r));
    const synced: string[] = [];
    for (const rel of following) {
      // Every push waiting on this Release shares one write: each asks for the same thing, a sync now.
      const done = await this.#writes.run(`${namespace}/${rel}`, () =>
        writeSync(
          client,
          { namespace, name: rel },
          { force: false, approve: false },
          this.#d.now,
          { kind: 'receiver', namespace, name, branch: v.branch },
          this.#d.events,
        ),
      );
      if (done.ok) synced.push(rel);
    }
    return synced;
  }
}

/** The answer to a push whose work threw: what failed, never a guess at the cause. */
function failureAnswer(err: unknown): Answer {
  if (isConflict(err)) {
    return fail(
      503,
      'the Release kept changing while its sync was requested (409 Conflict on each try); retry',
      {
        'Retry-After': '1',
      },
    );
  }
  if (isKubeError(err)) {
    return fail(503, `the Kubernetes API refused the request: HTTP ${err.code} ${err.reason}; retry`, {
      'Retry-After': '1',
    });
  }
  // The caller is a git host or anyone on the network: what failed is in the log, not in the answer.
  return fail(503, 'the Kubernetes API could not be reached; retry');
}

type Body =
  | { readonly kind: 'ok'; readonly bytes: Buffer }
  | { readonly kind: 'tooLarge'; readonly limit: number }
  | { readonly kind: 'timeout' };

/** Reads at most `limit` bytes (the rest is drained, not kept) within BODY_TIMEOUT_MS. */
function readBounded(req: IncomingMessage, limit: number): Promise<Body> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ kind: 'tooLarge', limit });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => {
      req.removeAllListeners('data');
      resolve({ kind: 'timeout' });
    }, BODY_TIMEOUT_MS);
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
    });
    req.on('end', () => {
      clearTimeout(timer);
      resolve(size > limit ? { kind: 'tooLarge', limit } : { kind: 'ok', bytes: Buffer.concat(chunks) });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
