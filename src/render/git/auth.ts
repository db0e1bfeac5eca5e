// Git credentials from a Secret's data, and the environment that hands them to git. Secrets go to git
// through environment variables and 0600 files, never through argv, where `ps` shows them to anyone.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertNever } from '../../lib/assert-never.ts';
import { SourceError } from '../errors.ts';
import type { CredentialData } from '../types.ts';
import type { GitScheme } from './spec.ts';

export type GitAuth =
  | { readonly type: 'none' }
  | { readonly type: 'basic'; readonly username: string; readonly password: string }
  | { readonly type: 'bearer'; readonly token: string }
  | { readonly type: 'ssh'; readonly privateKey: string; readonly knownHosts: string | undefined };

/** The username sent with a bare `token`; GitHub, GitLab and Gitea accept any non-empty one. */
export const DEFAULT_TOKEN_USERNAME = 'git';

/**
 * Secret keys, compatible with Flux's and with the kubernetes.io/basic-auth and ssh-auth types:
 * `identity` or `ssh-privatekey` (+ `known_hosts`) for SSH; `bearerToken`; `password` or `token`
 * (+ `username`) for HTTP basic auth.
 */
export function gitAuthFromSecret(data: CredentialData | undefined): GitAuth {
  if (data === undefined) return { type: 'none' };
  const get = (k: string) => (data[k] === undefined || data[k] === '' ? undefined : data[k]);
  const key = get('identity') ?? get('ssh-privatekey');
  if (key !== undefined) return { type: 'ssh', privateKey: key, knownHosts: get('known_hosts') };
  const bearer = get('bearerToken');
  if (bearer !== undefined) return { type: 'bearer', token: bearer };
  const password = get('password') ?? get('token');
  if (password !== undefined)
    return { type: 'basic', username: get('username') ?? DEFAULT_TOKEN_USERNAME, password };
  throw new SourceError(
    'the git Secret has none of the keys identity, ssh-privatekey, bearerToken, password or token',
  );
}

/** SSH keys only work over SSH and tokens only over HTTP(S); say so instead of failing obscurely. */
export function checkAuthFitsUrl(auth: GitAuth, scheme: GitScheme): void {
  const http = scheme === 'https' || scheme === 'http';
  switch (auth.type) {
    case 'none':
      return;
    case 'ssh':
      if (scheme !== 'ssh')
        throw new SourceError(`the git Secret holds an SSH key but the URL is ${scheme}://`);
      return;
    case 'basic':
    case 'bearer':
      if (!http) throw new SourceError(`the git Secret holds a token or password but the URL is not http(s)`);
      return;
    default:
      assertNever(auth);
  }
}

/** The values to scrub from anything git prints before it reaches a message. */
export function secretsOf(auth: GitAuth): string[] {
  switch (auth.type) {
    case 'none':
    case 'ssh':
      return [];
    case 'basic':
      return [auth.password, basicValue(auth.username, auth.password)];
    case 'bearer':
      return [auth.token];
    default:
      return assertNever(auth);
  }
}

function basicValue(username: string, password: string): string {
  return Buffer.from(`${username}:${password}`).toString('base64');
}

/** Variables that would point git somewhere else or ask someone something. */
const DROPPED = /^(GIT_|SSH_ASKPASS$|SSH_AUTH_SOCK$)/;

/** The environment every git command runs with, before credentials. */
export function baseGitEnv(parent: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(parent)) if (v !== undefined && !DROPPED.test(k)) env[k] = v;
  return {
    ...env,
    // A wrong or missing credential fails at once instead of waiting for a prompt no one answers.
    GIT_TERMINAL_PROMPT: '0',
    GCM_INTERACTIVE: 'never',
    // The machine's and the user's git config (credential helpers, url rewrites) take no part.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
    LC_ALL: 'C',
  };
}

export type PreparedAuth = {
  readonly env: Record<string, string>;
  readonly secrets: readonly string[];
  /** Removes the temporary key files; safe to call more than once. */
  cleanup(): Promise<void>;
};

/**
 * Environment for one git command with `auth`. HTTP credentials travel as an Authorization header
 * set through GIT_CONFIG_COUNT/KEY/VALUE (config from the environment, git >= 2.31), so they are
 * sent on the first request and never appear in argv. An SSH key is written to a 0600 file in a
 * fresh 0700 directory that cleanup() removes.
 */
export async function prepareAuth(
  auth: GitAuth,
  base: Record<string, string>,
  tmpDir: string,
): Promise<PreparedAuth> {
  const noop = async () => {};
  switch (auth.type) {
    case 'none':
      return { env: base, secrets: [], cleanup: noop };
    case 'basic':
    case 'bearer': {
      const header =
        auth.type === 'basic'
          ? `Authorization: Basic ${basicValue(auth.username, auth.password)}`
          : `Authorization: Bearer ${auth.token}`;
      return {
        env: {
          ...base,
          GIT_CONFIG_COUNT: '1',
          GIT_CONFIG_KEY_0: 'http.extraHeader',
          GIT_CONFIG_VALUE_0: header,
        },
        secrets: secretsOf(auth),
        cleanup: noop,
      };
    }
    case 'ssh': {
      const dir = await mkdtemp(join(tmpDir, 'convoy-ssh-'));
      const cleanup = () => rm(dir, { recursive: true, force: true });
      try {
        const keyFile = join(dir, 'identity');
        // OpenSSH refuses a key file without a final newline.
        await writeFile(keyFile, auth.privateKey.endsWith('\n') ? auth.privateKey : `${auth.privateKey}\n`, {
          mode: 0o600,
        });
        const opts = [
          `-i ${shellQuote(keyFile)}`,
          '-o IdentitiesOnly=yes',
          '-o BatchMode=yes',
          '-o StrictHostKeyChecking=yes',
        ];
        if (auth.knownHosts !== undefined) {
          const hostsFile = join(dir, 'known_hosts');
          await writeFile(hostsFile, auth.knownHosts, { mode: 0o600 });
          opts.push(`-o UserKnownHostsFile=${shellQuote(hostsFile)}`);
        }
        return { env: { ...base, GIT_SSH_COMMAND: `ssh ${opts.join(' ')}` }, secrets: [], cleanup };
      } catch (e) {
        await cleanup();
        throw e;
      }
    }
    default:
      return assertNever(auth);
  }
}

/** GIT_SSH_COMMAND is run by a shell; the temp path is ours, but quote it all the same. */
function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}
