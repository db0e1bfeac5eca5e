// GitSource against real repositories: file:// origins made in temp dirs, and a smart-HTTP server
// (git http-backend) for credentials and for counting what goes over the network.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { errorMessage } from '../../lib/errors.ts';
import { useScratchDir } from '../../lib/scratch-dir.ts';
import { SourceError, SourceTimeoutError } from '../errors.ts';
import { renderRelease } from '../release.ts';
import type { SourceOutput } from '../types.ts';
import { GitSource } from './source.ts';
import {
  type Fixture,
  type GitHttpServer,
  makeRepo,
  processesMentioning,
  type SilentListener,
  serveGitHttp,
  silentListener,
} from './testsupport.ts';

const execFileP = promisify(execFile);

const cm = (name: string, data = 'a') =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  v: "${data}"\n`;
const text = (out: SourceOutput) =>
  Object.fromEntries(out.files.map((f) => [f.path, Buffer.from(f.data).toString()]));

/**
 * A GitSource whose git is a shell wrapper: `lines` (given the log file and the wrapper's folder) run first,
 * then git itself. `commands()` returns what the wrapper logged since the last call, and empties the log.
 */
async function wrappedSource(root: string, name: string, lines: (log: string, dir: string) => string[]) {
  const dir = await mkdtemp(join(root, `${name}-`));
  const log = join(dir, 'log');
  await writeFile(log, '');
  const git = join(dir, 'git');
  await writeFile(git, ['#!/bin/sh', ...lines(log, dir), 'exec git "$@"', ''].join('\n'), { mode: 0o755 });
  const source = new GitSource({ cacheDir: await mkdtemp(join(root, 'cache-')), allowFileUrls: true, git });
  const commands = async () => {
    const out = await readFile(log, 'utf8');
    await writeFile(log, '');
    return out.split('\n').filter((l) => l !== '');
  };
  return { dir, source, commands };
}

function isSourceError(pattern: RegExp, forbidden?: string) {
  return (e: unknown) => {
    assert.ok(e instanceof SourceError, `not a SourceError: ${e}`);
    assert.equal(e.reason, 'SourceFailed');
    assert.match(e.message, pattern);
    if (forbidden !== undefined)
      assert.ok(!e.message.includes(forbidden), `message leaks a secret: ${e.message}`);
    return true;
  };
}

describe('GitSource over file://', () => {
  let repo: Fixture;
  let source: GitSource;
  let cacheDir: string;
  let first: string;

  before(async () => {
    repo = await makeRepo();
    cacheDir = await mkdtemp(join(repo.root, 'cache-'));
    source = new GitSource({ cacheDir, allowFileUrls: true });
    first = await repo.commit({
      'apps/web/a.yaml': cm('a'),
      'apps/web/sub/b.yml': cm('b'),
      'apps/other/c.yaml': cm('c'),
      'README.md': '# hi',
    });
  });
  after(() => repo.cleanup());

  it('fetches a branch: the revision is the commit SHA, files are under the path', async () => {
    const out = await source.fetch({ url: repo.url, ref: { branch: 'main' }, path: 'apps/web' }, undefined);
    assert.equal(out.revision, first);
    assert.deepEqual(text(out), { 'a.yaml': cm('a'), 'sub/b.yml': cm('b') });
  });

  it('fetches the whole repository without a path, and the default branch without a ref', async () => {
    const out = await source.fetch({ url: repo.url }, undefined);
    assert.equal(out.revision, first);
    assert.deepEqual(
      out.files.map((f) => f.path),
      ['README.md', 'apps/other/c.yaml', 'apps/web/a.yaml', 'apps/web/sub/b.yml'],
    );
  });

  it('sees a new commit on the next poll', async () => {
    const before = await source.fetch(
      { url: repo.url, ref: { branch: 'main' }, path: 'apps/web' },
      undefined,
    );
    const second = await repo.commit({ 'apps/web/a.yaml': cm('a', 'changed') });
    const afterPoll = await source.fetch(
      { url: repo.url, ref: { branch: 'main' }, path: 'apps/web' },
      undefined,
    );
    assert.equal(before.revision, first);
    assert.equal(afterPoll.revision, second);
    assert.equal(text(afterPoll)['a.yaml'], cm('a', 'changed'));
    // and the old commit can still be read by SHA
    const old = await source.fetch({ url: repo.url, ref: { commit: first }, path: 'apps/web' }, undefined);
    assert.equal(text(old)['a.yaml'], cm('a'));
    await repo.commit({ 'apps/web/a.yaml': cm('a') }); // back to the first content for the tests below
  });

  it('a poll of an unchanged ref asks the server (ls-remote) and fetches nothing; a moved ref is fetched', async () => {
    // Records which network commands run.
    const { source: counted, commands } = await wrappedSource(repo.root, 'wrap', (log) => [
      `for a in "$@"; do case "$a" in fetch|ls-remote) echo "$a" >> '${log}';; esac; done`,
    ]);
    for (const ref of [{ branch: 'main' }, {}] as const) {
      const spec = { url: repo.url, ...('branch' in ref ? { ref } : {}) };
      const a = await counted.fetch(spec, undefined);
      assert.deepEqual(await commands(), ['ls-remote', 'fetch'], 'first poll: nothing cached');
      const b = await counted.fetch(spec, undefined);
      assert.equal(b.revision, a.revision);
      assert.deepEqual(await commands(), ['ls-remote'], 'steady poll: no fetch');
    }
    const moved = await repo.commit({ 'moved.yaml': cm('m') });
    assert.equal(
      (await counted.fetch({ url: repo.url, ref: { branch: 'main' } }, undefined)).revision,
      moved,
    );
    assert.deepEqual(await commands(), ['ls-remote', 'fetch']);
    await repo.commit({ 'moved.yaml': null });
  });

  it('polls within one interval share one ask of the server, whichever Release (path) asks', async () => {
    const { source: counted, commands } = await wrappedSource(repo.root, 'window', (log) => [
      `for a in "$@"; do case "$a" in fetch|ls-remote) echo "$a" >> '${log}';; esac; done`,
    ]);
    const poll = (path: string, pollWindowMs: number) =>
      counted.fetch({ url: repo.url, ref: { branch: 'main' }, path }, undefined, undefined, { pollWindowMs });
    const a = await poll('apps/web', 60_000);
    assert.deepEqual(await commands(), ['ls-remote', 'fetch'], 'the first poll asks');
    const b = await poll('apps', 60_000);
    assert.equal(b.revision, a.revision);
    assert.deepEqual(await commands(), [], 'another path of the repository within the interval: no ask');
    await poll('apps/web', 0);
    assert.deepEqual(await commands(), ['ls-remote'], 'without an interval every poll asks');
  });

  it('a requested sync does not take the answer of a poll in flight that began before it: it fetches anew, at once', async () => {
    // Logs the network commands; an armed ls-remote gets its answer from the server, then says so through
    // the fifo `ready` and holds it back until the test writes to `go` — a poll caught mid-flight.
    const [armed, ready, go] = ['armed', 'ready', 'go'];
    const {
      dir,
      source: gated,
      commands,
    } = await wrappedSource(repo.root, 'gate', (log, dir) => [
      `for a in "$@"; do case "$a" in fetch|ls-remote) echo "$a" >> '${log}';; esac; done`,
      `case " $* " in *" ls-remote "*) if [ -e '${dir}/${armed}' ]; then rm '${dir}/${armed}'; out=$(git "$@") || exit $?; echo x > '${dir}/${ready}'; cat '${dir}/${go}' > /dev/null; printf '%s\\n' "$out"; exit 0; fi;; esac`,
    ]);
    await execFileP('mkfifo', [join(dir, ready), join(dir, go)]);
    const spec = { url: repo.url, ref: { branch: 'main' }, path: 'apps/web' };
    const old = (await gated.fetch(spec, undefined)).revision;
    await commands();
    await writeFile(join(dir, armed), '');
    const poll = gated.fetch(spec, undefined);
    await readFile(join(dir, ready)); // the poll has its (old) answer from the server
    const pushed = await repo.commit({ 'apps/web/a.yaml': cm('a', 'pushed') });
    const joined = gated.fetch(spec, undefined); // an interval reconcile joins the poll in flight
    const requested = gated.fetch(spec, undefined, undefined, { readAfter: performance.now() });
    const later = gated.fetch(spec, undefined); // and now the newer read
    await writeFile(join(dir, go), 'go');
    const [p, j, r, l] = await Promise.all([poll, joined, requested, later]);
    assert.equal(p.revision, old, 'the poll answers what the server had when it asked');
    assert.equal(j.revision, old, 'a plain fetch shares the poll in flight');
    assert.equal(r.revision, pushed, 'the requested sync sees the push');
    assert.equal(l.revision, pushed, 'a plain fetch after the request shares its read');
    assert.equal(text(r)['a.yaml'], cm('a', 'pushed'));
    assert.deepEqual(await commands(), ['ls-remote', 'fetch'], 'the poll asked; the request fetched at once');
    // Answered: the next request seen after that fetch began needs no server; a poll asks it again.
    const again = await gated.fetch(spec, undefined, undefined, { readAfter: 0 });
    assert.equal(again.revision, pushed);
    assert.deepEqual(await commands(), [], 'a request a later read answered reads the cache');
    await gated.fetch(spec, undefined);
    assert.deepEqual(await commands(), ['ls-remote']);
    await repo.commit({ 'apps/web/a.yaml': cm('a') }); // back to the first content for the tests below
  });

  it('git processes per read: a requested sync after a push runs three, a steady poll five', async () => {
    // Logs the git command of every process (its first word that is not an option).
    const { source: counted, commands } = await wrappedSource(repo.root, 'every', (log) => [
      `for a in "$@"; do case "$a" in -*) ;; *) echo "$a" >> '${log}'; break;; esac; done`,
    ]);
    const spec = { url: repo.url, ref: { branch: 'main' }, path: 'apps/web' };
    await counted.fetch(spec, undefined);
    await commands();
    await counted.fetch(spec, undefined);
    assert.deepEqual(await commands(), ['ls-remote', 'rev-parse', 'rev-parse', 'ls-tree', 'cat-file']);
    const pushed = await repo.commit({ 'apps/web/a.yaml': cm('a', 'counted') });
    const out = await counted.fetch(spec, undefined, undefined, { readAfter: performance.now() });
    assert.equal(out.revision, pushed, 'the SHA comes from the cat-file that read the files');
    assert.equal(text(out)['a.yaml'], cm('a', 'counted'));
    assert.deepEqual(await commands(), ['fetch', 'ls-tree', 'cat-file']);
    await repo.commit({ 'apps/web/a.yaml': cm('a') });
  });

  it('fetches an annotated tag as the commit it points at, and follows a moved tag', async () => {
    await repo.tag('v1', first);
    const out = await source.fetch({ url: repo.url, ref: { tag: 'v1' } }, undefined);
    assert.equal(out.revision, first);
    const head = await repo.commit({ 'x.yaml': cm('x') });
    await repo.tag('v1', head);
    assert.equal((await source.fetch({ url: repo.url, ref: { tag: 'v1' } }, undefined)).revision, head);
    // a requested read takes the SHA from cat-file: the commit the tag object points at, not the tag's own
    const next = await repo.commit({ 'x.yaml': cm('x', 'next') });
    await repo.tag('v1', next);
    const requested = { readAfter: performance.now() };
    assert.equal(
      (await source.fetch({ url: repo.url, ref: { tag: 'v1' } }, undefined, undefined, requested)).revision,
      next,
    );
  });

  it('fetches a short commit SHA', async () => {
    const out = await source.fetch(
      { url: repo.url, ref: { commit: first.slice(0, 10) }, path: 'apps/other' },
      undefined,
    );
    assert.equal(out.revision, first);
    assert.deepEqual(Object.keys(text(out)), ['c.yaml']);
  });

  it('fetches a commit no branch points at any more, by its full SHA', async () => {
    const lost = await repo.commit({ 'lost.yaml': cm('lost') }, 'short-lived');
    await repo.deleteBranch('short-lived');
    const out = await source.fetch({ url: repo.url, ref: { commit: lost }, path: 'lost.yaml' }, undefined);
    assert.equal(out.revision, lost);
    assert.deepEqual(text(out), { 'lost.yaml': cm('lost') });
  });

  it('reads a path that is one file', async () => {
    const out = await source.fetch(
      { url: repo.url, ref: { commit: first }, path: './apps/web/sub/b.yml' },
      undefined,
    );
    assert.deepEqual(text(out), { 'b.yml': cm('b') });
  });

  it('keeps one clone per URL whatever the ref', async () => {
    await source.fetch({ url: repo.url, ref: { branch: 'main' } }, undefined);
    await source.fetch({ url: repo.url, ref: { commit: first } }, undefined);
    await source.fetch({ url: repo.url, ref: { tag: 'v1' } }, undefined);
    assert.deepEqual(
      (await readdir(cacheDir)).filter((n) => n.endsWith('.git')),
      [source.clonePath(repo.url).split('/').pop()],
    );
  });

  it('serves five concurrent fetches of one URL from one clone', async () => {
    const outs = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        source.fetch(
          { url: repo.url, ref: i % 2 === 0 ? { branch: 'main' } : { commit: first }, path: 'apps/web' },
          undefined,
        ),
      ),
    );
    assert.equal(outs.filter((o) => o.revision === first).length >= 2, true);
    assert.equal((await readdir(cacheDir)).filter((n) => n.endsWith('.git')).length, 1);
  });

  it('a later commit with the same content gives the same renderRef', async () => {
    const spec = { url: repo.url, ref: { branch: 'main' }, path: 'apps/web' };
    const a = renderRelease({}, await source.fetch(spec, undefined));
    // same objects, other files and other key order
    await repo.commit({
      'apps/web/a.yaml': null,
      'apps/web/sub/b.yml': null,
      'apps/web/all.yaml': `${cm('b')}---\nkind: ConfigMap\napiVersion: v1\ndata:\n  v: "a"\nmetadata:\n  name: a\n`,
    });
    const b = renderRelease({}, await source.fetch(spec, undefined));
    assert.ok(a.ok && b.ok);
    assert.notEqual(a.revision, b.revision);
    assert.equal(a.renderRef, b.renderRef);
  });

  it('skips symlinks', async () => {
    const repo2 = await makeRepo('links');
    try {
      await repo2.commit({ 'a.yaml': cm('a') });
      // a symlink pointing out of the repository is committed as a link, and must not be followed
      const work = join(repo2.root, 'work');
      await symlink('/etc/passwd', join(work, 'passwd.yaml'));
      const sha = await repo2.commit({});
      const out = await source.fetch({ url: repo2.url, ref: { commit: sha } }, undefined);
      assert.deepEqual(Object.keys(text(out)), ['a.yaml']);
    } finally {
      await repo2.cleanup();
    }
  });

  const failures: [string, Parameters<GitSource['fetch']>[0], RegExp][] = [
    [
      'a missing branch',
      { url: '', ref: { branch: 'nope' } },
      /^fetching branch nope from file:\/\/.*repo\.git failed: fatal: couldn't find remote ref refs\/heads\/nope/,
    ],
    [
      'a missing tag',
      { url: '', ref: { tag: 'v9' } },
      /^fetching tag v9 from .* failed: .*couldn't find remote ref/,
    ],
    [
      'a missing commit',
      { url: '', ref: { commit: 'deadbeef'.repeat(5) } },
      /^commit deadbeef.* not found in file:\/\//,
    ],
    [
      'a missing path',
      { url: '', ref: { branch: 'main' }, path: 'nope/x' },
      /^path "nope\/x" not found in file:\/\/.* at commit [0-9a-f]{40}$/,
    ],
    ['a path that climbs out', { url: '', path: '../x' }, /must not contain "\.\."/],
    [
      'a missing repository',
      { url: 'file:///nonexistent/repo.git' },
      /^fetching the default branch from file:\/\/\/nonexistent\/repo\.git failed: .*does not appear to be a git repository/s,
    ],
  ];
  for (const [name, spec, want] of failures) {
    it(`fails with SourceFailed for ${name}`, async () => {
      await assert.rejects(
        source.fetch({ ...spec, url: spec.url || repo.url }, undefined),
        isSourceError(want),
      );
    });
  }

  it('rejects file:// URLs unless allowed', async () => {
    const strict = new GitSource({ cacheDir });
    await assert.rejects(
      strict.fetch({ url: repo.url }, undefined),
      isSourceError(/file:\/\/ URLs are not allowed/),
    );
  });

  it('refuses files over the size limit', async () => {
    const small = new GitSource({ cacheDir, allowFileUrls: true, maxBytes: 10 });
    await assert.rejects(
      small.fetch({ url: repo.url, ref: { commit: first } }, undefined),
      isSourceError(/over the limit of 10/),
    );
  });

  it('stops when the signal is aborted', async () => {
    await assert.rejects(
      source.fetch({ url: repo.url, ref: { branch: 'main' } }, undefined, AbortSignal.abort()),
      isSourceError(/aborted/),
    );
  });

  it('a commit in the cache needs no origin; a branch does', async () => {
    const srvMoved = `${repo.srv}-moved`;
    await rename(repo.srv, srvMoved);
    try {
      const out = await source.fetch({ url: repo.url, ref: { commit: first }, path: 'apps/web' }, undefined);
      assert.equal(out.revision, first);
      await assert.rejects(
        source.fetch({ url: repo.url, ref: { branch: 'main' } }, undefined),
        isSourceError(/^fetching branch main from /),
      );
    } finally {
      await rename(srvMoved, repo.srv);
    }
  });

  it('rebuilds a broken cached clone', async () => {
    const { rm } = await import('node:fs/promises');
    await rm(join(source.clonePath(repo.url), 'HEAD'));
    const out = await source.fetch({ url: repo.url, ref: { commit: first }, path: 'apps/other' }, undefined);
    assert.equal(out.revision, first);
  });
});

describe('GitSource over smart HTTP with credentials', () => {
  let repo: Fixture;
  let sha: string;
  let cacheDir: string;
  const token = 'tok-9f8e7d6c5b4a';
  const basic = `Basic ${Buffer.from(`git:${token}`).toString('base64')}`;

  before(async () => {
    repo = await makeRepo('private');
    sha = await repo.commit({ 'a.yaml': cm('a') });
    cacheDir = await mkdtemp(join(repo.root, 'cache-'));
  });
  after(() => repo.cleanup());

  /** Runs `use` against a git http-backend over the fixture that asks for `auth`, and stops it after. */
  const withServer = async (auth: string, use: (server: GitHttpServer) => Promise<void>) => {
    const server = await serveGitHttp(repo.srv, auth);
    try {
      await use(server);
    } finally {
      await server.close();
    }
  };

  it('fetches with the right token, sent as a header on the first request', async () => {
    await withServer(basic, async (server) => {
      const source = new GitSource({ cacheDir });
      const out = await source.fetch(
        { url: `${server.base}/private.git`, ref: { branch: 'main' } },
        { token },
      );
      assert.equal(out.revision, sha);
      assert.deepEqual(Object.keys(text(out)), ['a.yaml']);
    });
  });

  it('a bearer token', async () => {
    await withServer('Bearer b-123456', async (server) => {
      const source = new GitSource({ cacheDir: await mkdtemp(join(repo.root, 'cache-')) });
      const out = await source.fetch({ url: `${server.base}/private.git` }, { bearerToken: 'b-123456' });
      assert.equal(out.revision, sha);
    });
  });

  it('a wrong token fails fast with a redacted message', async () => {
    await withServer(basic, async (server) => {
      const source = new GitSource({ cacheDir: await mkdtemp(join(repo.root, 'cache-')), timeoutMs: 60_000 });
      const started = Date.now();
      const wrong = 'wrong-token-1234';
      await assert.rejects(
        source.fetch(
          { url: `${server.base}/private.git`, ref: { branch: 'main' } },
          { username: 'me', token: wrong },
        ),
        isSourceError(
          /^fetching branch main from http:\/\/127\.0\.0\.1:\d+\/private\.git failed: the repository rejected the credentials in the Secret \(/,
          wrong,
        ),
      );
      assert.ok(Date.now() - started < 15_000, 'a wrong token must not wait for a prompt');
    });
  });

  it('no credentials fail fast instead of prompting', async () => {
    await withServer(basic, async (server) => {
      const source = new GitSource({ cacheDir: await mkdtemp(join(repo.root, 'cache-')), timeoutMs: 60_000 });
      await assert.rejects(
        source.fetch({ url: `${server.base}/private.git` }, undefined),
        isSourceError(
          /failed: the repository needs credentials; name a Secret in secretRef \(.*terminal prompts disabled\)$/s,
        ),
      );
    });
  });

  it('a commit already in the cache is served without a request', async () => {
    await withServer(basic, async (server) => {
      const source = new GitSource({ cacheDir: await mkdtemp(join(repo.root, 'cache-')) });
      const url = `${server.base}/private.git`;
      await source.fetch({ url, ref: { branch: 'main' } }, { token });
      const afterBranch = server.requests;
      assert.ok(afterBranch > 0);
      assert.equal((await source.fetch({ url, ref: { commit: sha } }, { token })).revision, sha);
      assert.equal(server.requests, afterBranch, 'no request for a cached commit');
      await source.fetch({ url, ref: { branch: 'main' } }, { token });
      assert.ok(server.requests > afterBranch, 'a branch is fetched on every poll');
    });
  });

  it('a commit cached with one credential is not served to a request without it', async () => {
    await withServer(basic, async (server) => {
      const source = new GitSource({ cacheDir: await mkdtemp(join(repo.root, 'cache-')), timeoutMs: 60_000 });
      const url = `${server.base}/private.git`;
      await source.fetch({ url, ref: { branch: 'main' } }, { token });
      await assert.rejects(
        source.fetch({ url, ref: { commit: sha } }, undefined),
        isSourceError(/the repository needs credentials/s),
      );
      await assert.rejects(
        source.fetch({ url, ref: { commit: sha } }, { token: 'wrong-token-5678' }),
        isSourceError(/rejected the credentials/s, 'wrong-token-5678'),
      );
    });
  });

  it('an SSH key on an http URL is refused before git runs', async () => {
    const source = new GitSource({ cacheDir });
    await assert.rejects(
      source.fetch({ url: 'http://127.0.0.1:1/x.git' }, { identity: 'KEY' }),
      isSourceError(/SSH key but the URL is http/),
    );
  });
});

describe('GitSource over SSH', () => {
  it('runs ssh with the key, fails clearly, and removes the key file', async () => {
    const repo = await makeRepo('ssh');
    try {
      const tmpDir = await mkdtemp(join(repo.root, 'tmp-'));
      const source = new GitSource({ cacheDir: join(repo.root, 'cache'), tmpDir, timeoutMs: 20_000 });
      // port 1 on loopback refuses at once: enough to see ssh run with our options and fail cleanly
      await assert.rejects(
        source.fetch(
          { url: 'ssh://git@127.0.0.1:1/org/repo.git', ref: { branch: 'main' } },
          { identity: 'not a real key' },
        ),
        isSourceError(
          /^fetching branch main from ssh:\/\/git@127\.0\.0\.1:1\/org\/repo\.git failed: .*(Connection refused|connect to host)/s,
        ),
      );
      assert.deepEqual(await readdir(tmpDir), [], 'the key file is removed');
    } finally {
      await repo.cleanup();
    }
  });
});

describe('GitSource against a server that accepts and never answers', () => {
  let silent: SilentListener;
  const root = useScratchDir('convoy-git-stuck-');
  before(async () => {
    silent = await silentListener();
  });
  after(async () => {
    await silent.close();
  });

  const isTimeout = (started: number, boundMs: number) => (e: unknown) => {
    assert.ok(e instanceof SourceTimeoutError, `not a SourceTimeoutError: ${e}`);
    assert.equal(e.reason, 'SourceTimeout');
    assert.equal(e.url, silent.url);
    assert.ok(e.message.includes(silent.url), e.message);
    assert.match(e.message, /\d+(\.\d)?s/);
    assert.ok(Date.now() - started < boundMs, `took ${Date.now() - started} ms`);
    return true;
  };

  const limits = [
    {
      name: 'the stall limit ends the fetch with SourceTimeout naming the URL, and leaves no git process',
      cache: 'a',
      limits: { timeoutMs: 60_000, stallMs: 1000 },
      says: /sent nothing for 1s/,
    },
    {
      // A stall limit far beyond the total: only the process-group kill can end it.
      name: 'the total limit kills git and its remote helper: SourceTimeout, no orphan',
      cache: 'b',
      limits: { timeoutMs: 1500, stallMs: 600_000 },
      says: /timed out after 1.5s/,
    },
  ];
  for (const { name, cache, limits: l, says } of limits) {
    it(name, async () => {
      const source = new GitSource({ cacheDir: join(root(), cache), ...l });
      const started = Date.now();
      await assert.rejects(source.fetch({ url: silent.url, ref: { branch: 'main' } }, undefined), (e) => {
        isTimeout(started, 20_000)(e);
        assert.match(errorMessage(e), says);
        return true;
      });
      assert.deepEqual(await processesMentioning(`127.0.0.1:${silent.port}`), []);
    });
  }

  it('Releases on one URL share one fetch and its answer; one caller leaving early does not stop the others', async () => {
    const source = new GitSource({ cacheDir: join(root(), 'c'), timeoutMs: 2000, stallMs: 600_000 });
    const spec = { url: silent.url, ref: { branch: 'main' } };
    const before = silent.accepted;
    const ac = new AbortController();
    const started = Date.now();
    const leaving = source.fetch(spec, undefined, ac.signal);
    const waiting = [source.fetch(spec, undefined), source.fetch(spec, undefined)];
    ac.abort(new Error('the Release is being deleted'));
    await assert.rejects(leaving, /being deleted/);
    assert.ok(Date.now() - started < 1000, 'the aborted caller waited for the fetch');
    for (const p of waiting) await assert.rejects(p, isTimeout(started, 15_000));
    assert.equal(silent.accepted - before, 1, 'one connection for three callers');
  });
});
