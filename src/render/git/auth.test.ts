// Credentials from Secret data and the environment and files that hand them to git.
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import { SourceError } from '../errors.ts';
import { baseGitEnv, checkAuthFitsUrl, type GitAuth, gitAuthFromSecret, prepareAuth } from './auth.ts';

describe('gitAuthFromSecret', () => {
  const table: [Record<string, string> | undefined, GitAuth][] = [
    [undefined, { type: 'none' }],
    [{ token: 't0k' }, { type: 'basic', username: 'git', password: 't0k' }],
    [
      { username: 'me', password: 'pw' },
      { type: 'basic', username: 'me', password: 'pw' },
    ],
    [
      { username: 'me', token: 't0k' },
      { type: 'basic', username: 'me', password: 't0k' },
    ],
    [{ bearerToken: 'b' }, { type: 'bearer', token: 'b' }],
    [
      { identity: 'KEY', known_hosts: 'h' },
      { type: 'ssh', privateKey: 'KEY', knownHosts: 'h' },
    ],
    [{ 'ssh-privatekey': 'KEY' }, { type: 'ssh', privateKey: 'KEY', knownHosts: undefined }],
    [
      { identity: '', token: 't' },
      { type: 'basic', username: 'git', password: 't' },
    ],
  ];
  for (const [data, want] of table)
    it(JSON.stringify(data), () => assert.deepEqual(gitAuthFromSecret(data), want));
  it('names the keys it looks for', () => {
    assert.throws(
      () => gitAuthFromSecret({ user: 'x' }),
      (e: unknown) => e instanceof SourceError && /identity, ssh-privatekey/.test(e.message),
    );
  });
});

describe('checkAuthFitsUrl', () => {
  it('an SSH key needs an ssh URL', () => {
    assert.throws(
      () => checkAuthFitsUrl({ type: 'ssh', privateKey: 'k', knownHosts: undefined }, 'https'),
      /SSH key but the URL is https/,
    );
    checkAuthFitsUrl({ type: 'ssh', privateKey: 'k', knownHosts: undefined }, 'ssh');
  });
  it('a token needs an http(s) URL', () => {
    assert.throws(() => checkAuthFitsUrl({ type: 'bearer', token: 't' }, 'ssh'), /token or password/);
    checkAuthFitsUrl({ type: 'basic', username: 'u', password: 'p' }, 'http');
  });
});

describe('baseGitEnv', () => {
  it('disables prompts and outside config, and drops GIT_* of the parent', () => {
    const env = baseGitEnv({ PATH: '/bin', GIT_DIR: '/x', SSH_ASKPASS: '/a', HTTPS_PROXY: 'http://p' });
    assert.equal(env.GIT_TERMINAL_PROMPT, '0');
    assert.equal(env.GIT_CONFIG_NOSYSTEM, '1');
    assert.equal(env.GIT_DIR, undefined);
    assert.equal(env.SSH_ASKPASS, undefined);
    assert.equal(env.PATH, '/bin');
    assert.equal(env.HTTPS_PROXY, 'http://p');
  });
});

describe('prepareAuth', () => {
  it('sends basic credentials as a header through config variables', async () => {
    const p = await prepareAuth({ type: 'basic', username: 'u', password: 'p' }, { A: '1' }, tmpdir());
    assert.equal(p.env.GIT_CONFIG_KEY_0, 'http.extraHeader');
    assert.equal(p.env.GIT_CONFIG_VALUE_0, `Authorization: Basic ${Buffer.from('u:p').toString('base64')}`);
    assert.equal(p.env.A, '1');
    assert.ok(p.secrets.includes('p') && p.secrets.includes(Buffer.from('u:p').toString('base64')));
  });
  it('sends a bearer token as a header', async () => {
    const p = await prepareAuth({ type: 'bearer', token: 'tok' }, {}, tmpdir());
    assert.equal(p.env.GIT_CONFIG_VALUE_0, 'Authorization: Bearer tok');
  });
  it('writes an SSH key to a 0600 file that cleanup removes', async () => {
    const p = await prepareAuth(
      { type: 'ssh', privateKey: 'PRIVATE', knownHosts: 'host ssh-ed25519 AAAA' },
      {},
      tmpdir(),
    );
    const cmd = p.env.GIT_SSH_COMMAND ?? '';
    const keyFile = /-i '([^']+)'/.exec(cmd)?.[1] ?? '';
    const hostsFile = /UserKnownHostsFile='([^']+)'/.exec(cmd)?.[1] ?? '';
    assert.match(cmd, /-o IdentitiesOnly=yes/);
    assert.match(cmd, /-o StrictHostKeyChecking=yes/);
    assert.equal(await readFile(keyFile, 'utf8'), 'PRIVATE\n');
    assert.equal((await stat(keyFile)).mode & 0o777, 0o600);
    assert.equal(await readFile(hostsFile, 'utf8'), 'host ssh-ed25519 AAAA');
    await p.cleanup();
    await assert.rejects(stat(keyFile), { code: 'ENOENT' });
  });
});
