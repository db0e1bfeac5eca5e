// Push webhooks as pure functions: is the request signed with the Receiver's token (GitHub: HMAC-SHA256
// in X-Hub-Signature-256; GitLab: the token itself in X-Gitlab-Token; generic: HMAC-SHA256 in
// X-Convoy-Signature), what was pushed (repository URLs and branch), and which Releases follow it (a git
// source on that repository with ref.branch equal to the pushed branch, or no ref and the pushed branch
// being the default one). Comparisons are constant-time; nothing here logs or returns the token.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ReceiverType, Release } from '../api/types.ts';

export type Verified =
  | {
      readonly kind: 'push';
      readonly repositories: readonly string[];
      readonly branch: string;
      readonly defaultBranch?: string;
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

type Json = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const obj = (v: unknown): Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};

/** Verifies the request and reads the push. `token` is the Secret's key "token". Pure. */
export function verifyPush(
  type: ReceiverType,
  token: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
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
  switch (type) {
    case 'github': {
      const event = header(headers, 'X-GitHub-Event') ?? 'push';
      if (event === 'ping') return { kind: 'ignored', why: 'ping' };
      if (event !== 'push') return { kind: 'ignored', why: `event ${event} is not a push` };
      const repo = obj(json.repository);
      return pushOf(
        json.ref,
        [repo.clone_url, repo.ssh_url, repo.git_url, repo.html_url, repo.url],
        str(repo.default_branch) ?? str(repo.master_branch),
      );
    }
    case 'gitlab': {
      const event = header(headers, 'X-Gitlab-Event') ?? 'Push Hook';
      if (event !== 'Push Hook') return { kind: 'ignored', why: `event ${event} is not a push` };
      const project = obj(json.project);
      const repo = obj(json.repository);
      return pushOf(
        json.ref,
        [
          project.git_http_url,
          project.git_ssh_url,
          project.web_url,
          repo.git_http_url,
          repo.git_ssh_url,
          repo.homepage,
          repo.url,
        ],
        str(project.default_branch),
      );
    }
    case 'generic':
      return pushOf(
        typeof json.branch === 'string' ? `refs/heads/${json.branch}` : json.ref,
        [json.repository],
        undefined,
      );
  }
}

function pushOf(ref: unknown, urls: readonly unknown[], defaultBranch: string | undefined): Verified {
  const r = str(ref);
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
  push: Extract<Verified, { kind: 'push' }>,
): boolean {
  const git = release.spec.source.git;
  if (git === undefined) return false;
  if (!push.repositories.includes(normalizeRepoUrl(git.url))) return false;
  const ref = git.ref;
  if (ref === undefined) return push.defaultBranch !== undefined && push.defaultBranch === push.branch;
  return ref.branch === push.branch;
}
