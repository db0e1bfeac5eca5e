// Table tests: git URLs, refs and paths accepted or refused before git runs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SourceError } from '../errors.ts';
import { normalizeRepoPath, parseGitRef, parseGitUrl, redactUrl } from './spec.ts';

describe('parseGitUrl', () => {
  const good: [string, string, string][] = [
    ['https://github.com/org/repo.git', 'https', 'https://github.com/org/repo.git'],
    ['HTTPS://GitHub.com/org/repo', 'https', 'https://github.com/org/repo'],
    ['http://127.0.0.1:8080/repo.git', 'http', 'http://127.0.0.1:8080/repo.git'],
    ['https://user@host/repo', 'https', 'https://user@host/repo'],
    ['ssh://git@github.com/org/repo.git', 'ssh', 'ssh://git@github.com/org/repo.git'],
    ['git@github.com:org/repo.git', 'ssh', 'git@github.com:org/repo.git'],
    ['git://host/repo', 'git', 'git://host/repo'],
  ];
  for (const [url, scheme, display] of good) {
    it(`accepts ${url}`, () => {
      const u = parseGitUrl(url, false);
      assert.equal(u.scheme, scheme);
      assert.equal(u.display, display);
      assert.equal(u.url, url);
      assert.match(u.cacheKey, /^[0-9a-f]{32}$/);
    });
  }
  const bad: [string, RegExp][] = [
    ['', /invalid/],
    ['-uhttps://x', /starts with "-"/],
    ['https://x/ repo', /contains spaces/],
    ['ext::sh -c touch% /tmp/pwned', /invalid/],
    ['ext::sh', /transport::address/],
    ['fd::17', /transport::address/],
    ['file:///srv/repo.git', /file:\/\/ URLs are not allowed/],
    ['/srv/repo.git', /use https/],
    ['ftp://host/repo', /scheme ftp is not supported/],
    ['https://user:s3cret@host/repo', /contains a password/],
  ];
  for (const [url, want] of bad) {
    it(`rejects ${JSON.stringify(url)}`, () => {
      assert.throws(
        () => parseGitUrl(url, false),
        (e: unknown) => e instanceof SourceError && want.test(e.message) && !e.message.includes('s3cret'),
      );
    });
  }
  it('allows file:// when asked', () =>
    assert.equal(parseGitUrl('file:///srv/repo.git', true).scheme, 'file'));
  it('gives one cache key per repository, whatever the case of scheme and host', () => {
    assert.equal(
      parseGitUrl('https://GITHUB.com/a/b', false).cacheKey,
      parseGitUrl('https://github.com/a/b', false).cacheKey,
    );
    assert.notEqual(
      parseGitUrl('https://github.com/a/b', false).cacheKey,
      parseGitUrl('https://github.com/a/c', false).cacheKey,
    );
  });
  it('redactUrl hides a password', () => assert.equal(redactUrl('x https://u:p@h/r'), 'x https://u:***@h/r'));
});

describe('parseGitRef', () => {
  const good: [Parameters<typeof parseGitRef>[0], ReturnType<typeof parseGitRef>][] = [
    [undefined, { type: 'default' }],
    [{}, { type: 'default' }],
    [{ branch: 'main' }, { type: 'branch', name: 'main' }],
    [{ branch: 'feature/x-1' }, { type: 'branch', name: 'feature/x-1' }],
    [{ branch: 'refs/heads/main' }, { type: 'branch', name: 'main' }],
    [{ tag: 'v1.2.3' }, { type: 'tag', name: 'v1.2.3' }],
    [{ commit: 'ABCDEF1' }, { type: 'commit', sha: 'abcdef1' }],
  ];
  for (const [ref, want] of good)
    it(`${JSON.stringify(ref)}`, () => assert.deepEqual(parseGitRef(ref), want));
  const bad: [Parameters<typeof parseGitRef>[0], RegExp][] = [
    [{ branch: 'a', tag: 'b' }, /not branch and tag/],
    [{ branch: '-x' }, /not a valid ref name/],
    [{ branch: 'a..b' }, /not a valid ref name/],
    [{ branch: 'a b' }, /not a valid ref name/],
    [{ branch: 'HEAD@{1}' }, /not a valid ref name/],
    [{ branch: 'x.lock' }, /not a valid ref name/],
    [{ tag: 'v1^{}' }, /not a valid ref name/],
    [{ tag: '.hidden' }, /not a valid ref name/],
    [{ commit: 'abc' }, /want 7 to 64 hex digits/],
    [{ commit: 'main' }, /want 7 to 64 hex digits/],
  ];
  for (const [ref, want] of bad) {
    it(`rejects ${JSON.stringify(ref)}`, () =>
      assert.throws(
        () => parseGitRef(ref),
        (e: unknown) => e instanceof SourceError && want.test(e.message),
      ));
  }
});

describe('normalizeRepoPath', () => {
  const good: [string | undefined, string][] = [
    [undefined, ''],
    ['', ''],
    ['.', ''],
    ['./apps/web/', 'apps/web'],
    ['apps//web', 'apps/web'],
    ['a/./b', 'a/b'],
    ['dots..in..name', 'dots..in..name'],
  ];
  for (const [raw, want] of good)
    it(`${JSON.stringify(raw)} → ${JSON.stringify(want)}`, () => assert.equal(normalizeRepoPath(raw), want));
  for (const raw of ['..', '../x', 'a/../../b', 'a/..', '/etc']) {
    it(`rejects ${raw}`, () => assert.throws(() => normalizeRepoPath(raw), SourceError));
  }
});
