// Table tests: OCI URLs, refs and CLI references accepted or refused (naming the field) before any request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SourceError } from '../errors.ts';
import { describeRef, parseOciRef, parseOciReference, parseOciUrl } from './reference.ts';

describe('parseOciUrl', () => {
  const good: [string, string, string, string][] = [
    ['oci://ghcr.io/org/app', 'ghcr.io', 'ghcr.io', 'org/app'],
    ['oci://127.0.0.1:5000/manifests/web', '127.0.0.1:5000', '127.0.0.1:5000', 'manifests/web'],
    ['oci://localhost:5000/a_b/c-d/e.f/', 'localhost:5000', 'localhost:5000', 'a_b/c-d/e.f'],
    ['oci://docker.io/nginx', 'docker.io', 'registry-1.docker.io', 'library/nginx'],
    ['oci://[::1]:5000/x', '[::1]:5000', '[::1]:5000', 'x'],
  ];
  for (const [url, host, apiHost, repository] of good) {
    it(`accepts ${url}`, () =>
      assert.deepEqual(parseOciUrl(url), {
        host,
        apiHost,
        repository,
        display: `oci://${host}/${url.slice(url.indexOf('/', 6) + 1).replace(/\/$/, '')}`,
      }));
  }
  const bad: [string, RegExp][] = [
    [
      'https://ghcr.io/x',
      /spec\.source\.oci\.url "https:\/\/ghcr\.io\/x" is invalid: it must start with oci:\/\//,
    ],
    ['oci://ghcr.io', /want oci:\/\/host\/repository/],
    ['oci://user:pw@ghcr.io/x', /credentials go in the Secret/],
    ['oci://ghcr.io/App', /must be lowercase/],
    ['oci://ghcr.io/x:v1', /a tag or digest goes in spec\.source\.oci\.ref/],
    ['oci://ghcr.io/x@sha256:00', /a tag or digest goes in spec\.source\.oci\.ref/],
    ['oci://-bad/x', /is not a registry host/],
    ['oci://ghcr.io/../x', /must be lowercase/],
  ];
  for (const [url, want] of bad) {
    it(`refuses ${url}`, () =>
      assert.throws(
        () => parseOciUrl(url),
        (e: unknown) => e instanceof SourceError && want.test(e.message),
      ));
  }
});

describe('parseOciRef', () => {
  const d = `sha256:${'a'.repeat(64)}`;
  it('defaults to tag latest', () =>
    assert.deepEqual(parseOciRef(undefined), { type: 'tag', tag: 'latest' }));
  it('reads a tag, a digest, a range', () => {
    assert.deepEqual(parseOciRef({ tag: 'v1.2.3' }), { type: 'tag', tag: 'v1.2.3' });
    assert.deepEqual(parseOciRef({ digest: d }), { type: 'digest', digest: d });
    assert.equal(describeRef(parseOciRef({ semver: '>=1.0.0' })), 'semver ">=1.0.0"');
  });
  const bad: [Parameters<typeof parseOciRef>[0], RegExp][] = [
    [
      { tag: 'a', digest: d },
      /spec\.source\.oci\.ref must set one of tag, semver or digest, not tag and digest/,
    ],
    [{ digest: 'sha256:short' }, /spec\.source\.oci\.ref\.digest "sha256:short" is invalid/],
    [{ tag: '-x' }, /spec\.source\.oci\.ref\.tag "-x" is not a valid tag/],
    [{ semver: 'latest' }, /spec\.source\.oci\.ref\.semver: semver range "latest": cannot read/],
  ];
  for (const [ref, want] of bad) {
    it(`refuses ${JSON.stringify(ref)}`, () => assert.throws(() => parseOciRef(ref), want));
  }
});

describe('parseOciReference', () => {
  it('splits tags and digests off, keeping a port', () => {
    const t = parseOciReference('oci://127.0.0.1:5000/app:v1');
    assert.equal(t.repo.repository, 'app');
    assert.deepEqual(t.ref, { type: 'tag', tag: 'v1' });
    const n = parseOciReference('oci://127.0.0.1:5000/app');
    assert.deepEqual(n.ref, { type: 'tag', tag: 'latest' });
    const d = parseOciReference(`oci://h/app@sha256:${'b'.repeat(64)}`);
    assert.equal(d.ref.type, 'digest');
  });
});
