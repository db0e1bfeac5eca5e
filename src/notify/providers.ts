// The HTTP request each provider type makes of one notification, as pure data: a generic webhook gets a
// JSON body signed with HMAC-SHA256 (X-Convoy-Signature: sha256=<hex>) when its Secret has a token; a
// Slack-compatible webhook gets {text}; GitHub and GitLab get a commit status on the Release's revision
// (pending while Progressing, success once Succeeded, failure when Failed or RolledBack). Secrets come in
// as values read from the Provider's Secret and leave only in headers and the URL — never in a message.
import { createHmac } from 'node:crypto';
import { API_VERSION } from '../api/constants.ts';
import type { ProviderSpec } from '../api/types.ts';
import { definedFields } from '../lib/defined.ts';
import { type Fact, summary } from './facts.ts';

export const SIGNATURE_HEADER = 'X-Convoy-Signature';
export const DEFAULT_GITHUB_API = 'https://api.github.com';
export const DEFAULT_GITLAB_API = 'https://gitlab.com/api/v4';

/** The keys convoy reads from a Provider's Secret. */
export interface ProviderSecret {
  readonly token?: string;
  readonly address?: string;
}

export interface ReleaseRef {
  readonly namespace: string;
  readonly name: string;
  /** spec.source.git.url, for a commit status without spec.repository. */
  readonly gitUrl?: string;
}

export interface HttpRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type Built =
  | { readonly kind: 'request'; readonly request: HttpRequest }
  /** Nothing to send through this provider (e.g. a commit status for a sync failure). */
  | { readonly kind: 'notApplicable'; readonly why: string }
  /** The Provider cannot send as configured; the message names the field, never a value. */
  | { readonly kind: 'invalid'; readonly message: string };

/** hex HMAC-SHA256 of `body` under `key`. */
export function sign(key: string, body: string): string {
  return createHmac('sha256', key).update(body).digest('hex');
}

/** The JSON a generic webhook receives. */
export function genericBody(release: ReleaseRef, fact: Fact, time: string): Record<string, unknown> {
  return definedFields({
    apiVersion: API_VERSION,
    kind: 'Notification',
    release: { namespace: release.namespace, name: release.name },
    event: fact.event,
    severity: fact.severity,
    renderRef: fact.renderRef,
    revision: fact.revision,
    targetRenderRef: fact.targetRenderRef,
    targetRevision: fact.targetRevision,
    reason: fact.reason,
    message: summary(release, fact),
    detail: fact.message,
    time,
  });
}

const SLACK_ICON: Readonly<Record<Fact['severity'], string>> = {
  info: ':information_source:',
  warning: ':warning:',
  error: ':rotating_light:',
};

/** owner/repo (or group/sub/project) from a git URL: https, ssh://, scp-like; undefined when none. */
export function repositoryOf(gitUrl: string | undefined): string | undefined {
  if (gitUrl === undefined) return undefined;
  const scp = /^[A-Za-z0-9._~-]+@[A-Za-z0-9.-]+:(.+)$/.exec(gitUrl);
  let path: string;
  if (scp?.[1] !== undefined) path = scp[1];
  else {
    try {
      path = new URL(gitUrl).pathname;
    } catch {
      return undefined;
    }
  }
  const p = path
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
  return p.includes('/') ? p : undefined;
}

const COMMIT = /^[0-9a-f]{7,64}$/;

type CommitState = 'pending' | 'success' | 'failure';

function commitState(fact: Fact): CommitState | undefined {
  switch (fact.event) {
    case 'Progressing':
      return 'pending';
    case 'Succeeded':
      return 'success';
    case 'Failed':
    case 'RolledBack':
      return 'failure';
    default:
      return undefined;
  }
}

/** The commit status context: one per Release, so two Releases of one repository do not overwrite each other. */
export function statusContext(release: ReleaseRef): string {
  return `convoy/${release.namespace}/${release.name}`;
}

export function buildRequest(
  spec: ProviderSpec,
  secret: ProviderSecret,
  release: ReleaseRef,
  fact: Fact,
  time: string,
): Built {
  const json = { 'Content-Type': 'application/json', 'User-Agent': 'convoy-notify' };
  switch (spec.type) {
    case 'generic': {
      const url = secret.address ?? spec.address;
      if (url === undefined)
        return { kind: 'invalid', message: 'no address: set spec.address or Secret key "address"' };
      const body = JSON.stringify(genericBody(release, fact, time));
      const headers: Record<string, string> = { ...json };
      if (secret.token !== undefined) headers[SIGNATURE_HEADER] = `sha256=${sign(secret.token, body)}`;
      return { kind: 'request', request: { url, headers, body } };
    }
    case 'slack': {
      const url = secret.address ?? spec.address;
      if (url === undefined)
        return { kind: 'invalid', message: 'no address: set spec.address or Secret key "address"' };
      const text = `${SLACK_ICON[fact.severity]} ${summary(release, fact)}`;
      return { kind: 'request', request: { url, headers: json, body: JSON.stringify({ text }) } };
    }
    case 'github':
    case 'gitlab': {
      const state = commitState(fact);
      if (state === undefined) return { kind: 'notApplicable', why: `no commit status for ${fact.event}` };
      const sha = fact.revision ?? '';
      if (!COMMIT.test(sha)) return { kind: 'notApplicable', why: 'the revision is not a git commit' };
      const repo = spec.repository ?? repositoryOf(release.gitUrl);
      if (repo === undefined) {
        return {
          kind: 'invalid',
          message: 'no repository: set spec.repository (the Release has no git URL to take it from)',
        };
      }
      if (secret.token === undefined) return { kind: 'invalid', message: 'Secret has no key "token"' };
      const description = summary(release, fact).slice(0, 140);
      const context = statusContext(release);
      if (spec.type === 'github') {
        const base = (spec.address ?? DEFAULT_GITHUB_API).replace(/\/+$/, '');
        return {
          kind: 'request',
          request: {
            url: `${base}/repos/${repo}/statuses/${sha}`,
            headers: {
              ...json,
              Accept: 'application/vnd.github+json',
              'X-GitHub-Api-Version': '2022-11-28',
              Authorization: `Bearer ${secret.token}`,
            },
            body: JSON.stringify({ state, context, description }),
          },
        };
      }
      const base = (spec.address ?? DEFAULT_GITLAB_API).replace(/\/+$/, '');
      return {
        kind: 'request',
        request: {
          url: `${base}/projects/${encodeURIComponent(repo)}/statuses/${sha}`,
          headers: { ...json, 'PRIVATE-TOKEN': secret.token },
          body: JSON.stringify({ state: state === 'failure' ? 'failed' : state, name: context, description }),
        },
      };
    }
  }
}
