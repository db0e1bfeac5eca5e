// Push webhooks as pure functions: is the request signed with the Receiver's token (GitHub: HMAC-SHA256
// in X-Hub-Signature-256; GitLab: the token itself in X-Gitlab-Token; generic: HMAC-SHA256 in
// X-Convoy-Signature), what was pushed (repository URLs and branch), and which Releases follow it (a git
// source on that repository with ref.branch equal to the pushed branch, or no ref and the pushed branch
// being the default one), and what identifies the delivery so a replay is known (the host's delivery id,
// the body's digest; docs/notifications.md#push-receivers). A push whose fields have the wrong type is
// refused naming the field and the type it needs. Comparisons are constant-time; nothing here logs or
// returns the token.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ReceiverType, Release } from '../api/types.ts';

export type Verified =
  | {
      readonly kind: 'push';
      readonly repositories: readonly string[];
      readonly branch: string;
      readonly defaultBranch?: string;
      /**
       * What identifies this delivery ("id:<delivery id>", "body:<sha256>"): a push whose keys were seen
       * in the replay window is a replay.
       */
      readonly deliveryKeys: readonly string[];
      /** The header or field the delivery id came from, for the answer to a replay. */
      readonly deliveryIdFrom?: string;
    }
  /** Signed, but not a push (a ping, a tag, another event): answered 200, nothing synced. */
  | { readonly kind: 'ignored'; readonly why: string }
  | { readonly kind: 'unauthorized'; readonly why: string }
  | { readonly kind: 'invalid'; readonly why: string };

function header(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function hmacOk(token: string, body: Buffer, given: string | undefined): boolean {
  if (given === undefined || !given.startsWith('sha256=')) return false;
  const want = `sha256=${createHmac('sha256', token).update(body).digest('hex')}`;
  return sameText(want, given.trim().toLowerCase());
}

/** How far a generic push's signed `timestamp` may be from this server's clock. */
export const TIMESTAMP_SKEW_MS = 5 * 60_000;
/** The header that carries each host's delivery id (generic: the body's own `delivery` field). */
const DELIVERY_HEADER = { github: 'X-GitHub-Delivery', gitlab: 'X-Gitlab-Event-UUID' } as const;

type Json = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** "an array", "a number", … — what a field holds, for the message refusing it. */
function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  const t = typeof v;
  return t === 'object' ? 'an object' : t === 'string' ? 'an empty string' : `a ${t}`;
}

/** The field's string, undefined when absent, or the refusal naming the field and its expected type. */
function stringField(
  json: Json,
  path: string,
  field: string,
): string | undefined | { readonly kind: 'invalid'; readonly why: string } {
  const v = json[field];
  if (v === undefined) return undefined;
  const s = str(v);
  if (s !== undefined) return s;
  return { kind: 'invalid', why: `field "${path}" must be a non-empty string, got ${kindOf(v)}` };
}

const isInvalid = (v: unknown): v is { readonly kind: 'invalid'; readonly why: string } =>
  typeof v === 'object' && v !== null;
const obj = (v: unknown): Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};

/** Verifies the request and reads the push. `token` is the Secret's key "token". Pure. */
export function verifyPush(
  type: ReceiverType,
  token: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
  nowMs: number,
): Verified {
  switch (type) {
    case 'github':
    case 'generic': {
      const signature = type === 'github' ? 'X-Hub-Signature-256' : 'X-Convoy-Signature';
      if (!hmacOk(token, body, header(headers, signature))) {
        return { kind: 'unauthorized', why: `${signature} does not match the body signed with the token` };
      }
      break;
    }
    case 'gitlab': {
      const given = header(headers, 'X-Gitlab-Token');
      if (given === undefined || !sameText(given, token)) {
        return { kind: 'unauthorized', why: 'X-Gitlab-Token does not match the token' };
      }
      break;
    }
  }
  let json: Json;
  try {
    json = obj(JSON.parse(body.toString('utf8')));
  } catch {
    return { kind: 'invalid', why: 'the body is not JSON' };
  }
  const digest = `body:${createHash('sha256').update(body).digest('hex')}`;
  switch (type) {
    case 'github':
    case 'gitlab': {
      const gh = type === 'github';
      const event = header(headers, gh ? 'X-GitHub-Event' : 'X-Gitlab-Event') ?? (gh ? 'push' : 'Push Hook');
      if (gh && event === 'ping') return { kind: 'ignored', why: 'ping' };
      if (event !== (gh ? 'push' : 'Push Hook'))
        return { kind: 'ignored', why: `event ${event} is not a push` };
      const ref = stringField(json, 'ref', 'ref');
      if (isInvalid(ref)) return ref;
      const project = obj(json.project);
      const repo = obj(json.repository);
      const urls = gh
        ? [repo.clone_url, repo.ssh_url, repo.git_url, repo.html_url, repo.url]
        : [
            project.git_http_url,
            project.git_ssh_url,
            project.web_url,
            repo.git_http_url,
            repo.git_ssh_url,
            repo.homepage,
            repo.url,
          ];
      const idHeader = DELIVERY_HEADER[type];
      const id = header(headers, idHeader);
      // The body is the host's own record of one push (commits, timestamps): the same body again is the
      // same push, whatever delivery id it comes with.
      const keys = [...(id === undefined || id === '' ? [] : [`id:${id}`]), digest];
      const defaultBranch = gh
        ? (str(repo.default_branch) ?? str(repo.master_branch))
        : str(project.default_branch);
      return pushOf(ref, urls, defaultBranch, keys, id === undefined ? undefined : idHeader);
    }
    case 'generic': {
      const branch = stringField(json, 'branch', 'branch');
      if (isInvalid(branch)) return branch;
      const ref = stringField(json, 'ref', 'ref');
      if (isInvalid(ref)) return ref;
      const repository = stringField(json, 'repository', 'repository');
      if (isInvalid(repository)) return repository;
      const delivery = stringField(json, 'delivery', 'delivery');
      if (isInvalid(delivery)) return delivery;
      const at = timestampOf(json.timestamp);
      if (at.kind === 'invalid') return at;
      if (at.kind === 'at' && Math.abs(nowMs - at.ms) > TIMESTAMP_SKEW_MS) {
        return {
          kind: 'unauthorized',
          why: `field "timestamp" is ${Math.round(Math.abs(nowMs - at.ms) / 1000)} s from this server's clock, over the ${TIMESTAMP_SKEW_MS / 1000} s allowed: a replayed push, or a clock that is off`,
        };
      }
      // A body without a timestamp or a delivery id may be sent again on purpose (the same branch pushed
      // twice); with one, the same body again is a replay.
      const keys = [
        ...(delivery === undefined ? [] : [`id:${delivery}`]),
        ...(delivery === undefined && at.kind === 'none' ? [] : [digest]),
      ];
      return pushOf(
        branch === undefined ? ref : `refs/heads/${branch}`,
        [repository],
        undefined,
        keys,
        delivery === undefined ? undefined : 'field "delivery"',
      );
    }
  }
}

/** A generic push's `timestamp`: seconds since the epoch, or an RFC 3339 time. */
function timestampOf(
  v: unknown,
):
  | { readonly kind: 'none' }
  | { readonly kind: 'at'; readonly ms: number }
  | { readonly kind: 'invalid'; readonly why: string } {
  if (v === undefined) return { kind: 'none' };
  if (typeof v === 'number' && Number.isFinite(v)) return { kind: 'at', ms: v * 1000 };
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v) && Number.isFinite(Date.parse(v))) {
    return { kind: 'at', ms: Date.parse(v) };
  }
  return {
    kind: 'invalid',
    why: `field "timestamp" must be seconds since the epoch (a number) or an RFC 3339 time (a string), got ${typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : kindOf(v)}`,
  };
}

function pushOf(
  r: string | undefined,
  urls: readonly unknown[],
  defaultBranch: string | undefined,
  deliveryKeys: readonly string[],
  deliveryIdFrom: string | undefined,
): Verified {
  if (r === undefined) return { kind: 'invalid', why: 'the push names no ref (or branch)' };
  if (!r.startsWith('refs/heads/')) return { kind: 'ignored', why: `${r} is not a branch` };
  const repositories = [
    ...new Set(
      urls
        .map(str)
        .filter((u) => u !== undefined)
        .map(normalizeRepoUrl),
    ),
  ];
  if (repositories.length === 0) return { kind: 'invalid', why: 'the push names no repository URL' };
  return {
    kind: 'push',
    repositories,
    branch: r.slice('refs/heads/'.length),
    ...(defaultBranch === undefined ? {} : { defaultBranch }),
    deliveryKeys,
    ...(deliveryIdFrom === undefined ? {} : { deliveryIdFrom }),
  };
}

/**
 * A repository URL in a form that is equal for every way to spell it: host in lower case, no scheme,
 * user, port of the default scheme, trailing slash or ".git" (https://github.com/A/b.git, git@github.com:A/b
 * and ssh://git@github.com/A/b all become github.com/A/b); file URLs keep their path. Pure.
 */
export function normalizeRepoUrl(url: string): string {
  const u = url.trim();
  const tidy = (p: string) =>
    p
      .replace(/\/+$/, '')
      .replace(/\.git$/, '')
      .replace(/\/+$/, '');
  const scp = /^[A-Za-z0-9._~-]+@([A-Za-z0-9.-]+):(?!\/\/)(.+)$/.exec(u);
  if (scp?.[1] !== undefined && scp[2] !== undefined)
    return tidy(`${scp[1].toLowerCase()}/${scp[2].replace(/^\/+/, '')}`);
  try {
    const p = new URL(u);
    if (p.protocol === 'file:') return tidy(`file:${p.pathname}`);
    return tidy(`${p.hostname.toLowerCase()}${p.pathname}`);
  } catch {
    return tidy(u);
  }
}

/** Whether the Release follows what was pushed. Pure. */
export function followsPush(
  release: Pick<Release, 'spec'>,
  push: Pick<Extract<Verified, { kind: 'push' }>, 'repositories' | 'branch' | 'defaultBranch'>,
): boolean {
  const git = release.spec.source.git;
  if (git === undefined) return false;
  if (!push.repositories.includes(normalizeRepoUrl(git.url))) return false;
  const ref = git.ref;
  if (ref === undefined) return push.defaultBranch !== undefined && push.defaultBranch === push.branch;
  return ref.branch === push.branch;
}
