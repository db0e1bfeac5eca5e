// fetchSource's dispatch on spec.source, and decoding Secret data into credentials.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SourceError } from './errors.ts';
import { InlineSource } from './inline.ts';
import {
  credentialsFromSecretData,
  fetchSource,
  type Source,
  sourceAccess,
  sourceSecretNames,
} from './source.ts';
import type { GitSourceSpec } from './types.ts';

const fakeGit: Source<GitSourceSpec> = {
  fetch: (spec, credentials) =>
    Promise.resolve({ revision: `${spec.url}|${credentials?.token ?? ''}`, files: [] }),
};

describe('fetchSource', () => {
  it('fetches inline manifests', async () => {
    const out = await fetchSource({ inline: { manifests: 'a: 1\n' } }, undefined, { inline: InlineSource });
    assert.match(out.revision, /^inline:/);
  });
  it('hands git specs and credentials to the git source', async () => {
    const out = await fetchSource(
      { git: { url: 'u' } },
      { token: 't' },
      { inline: InlineSource, git: fakeGit },
    );
    assert.equal(out.revision, 'u|t');
  });
  it("returns the source's access with its files, for a chart's dependencies", async () => {
    const out = await fetchSource(
      { git: { url: 'https://git.example.com/a.git' } },
      { token: 't' },
      { inline: InlineSource, git: fakeGit },
    );
    assert.deepEqual(out.access, { credentials: { token: 't' }, host: 'git.example.com' });
  });
  const bad: [Parameters<typeof fetchSource>[0], RegExp][] = [
    [{}, /exactly one of git, oci, chart, inline \(found none\)/],
    [{ inline: { manifests: 'x' }, git: { url: 'u' } }, /found git, inline/],
    [{ oci: { url: 'oci://r/x' } }, /oci sources are not enabled/],
    [{ git: { url: 'u' } }, /git sources are not enabled/],
  ];
  for (const [spec, want] of bad) {
    it(`rejects ${JSON.stringify(spec)}`, async () => {
      await assert.rejects(
        fetchSource(spec, undefined, { inline: InlineSource }),
        (e: unknown) => e instanceof SourceError && want.test(e.message),
      );
    });
  }
});

describe('credentialsFromSecretData', () => {
  it('decodes base64 values', () => {
    assert.deepEqual(credentialsFromSecretData({ token: Buffer.from('s3cret').toString('base64') }), {
      token: 's3cret',
    });
    assert.deepEqual(credentialsFromSecretData(undefined), {});
  });
});

describe('sourceSecretNames', () => {
  it('names the Secrets a source reads, each once, in order', () => {
    assert.deepEqual(sourceSecretNames({ inline: { manifests: 'x' } }), []);
    assert.deepEqual(sourceSecretNames({ git: { url: 'u', secretRef: { name: 'g' } } }), ['g']);
    assert.deepEqual(
      sourceSecretNames({
        oci: { url: 'oci://r/x', secretRef: { name: 'pull' }, certSecretRef: { name: 'ca' } },
      }),
      ['pull', 'ca'],
    );
    assert.deepEqual(
      sourceSecretNames({
        oci: { url: 'oci://r/x', secretRef: { name: 's' }, certSecretRef: { name: 's' } },
      }),
      ['s'],
    );
  });
});

describe('sourceAccess', () => {
  const table: [string, Parameters<typeof sourceAccess>[0], ReturnType<typeof sourceAccess>][] = [
    ['https git', { git: { url: 'https://git.example.com:8443/a.git' } }, { host: 'git.example.com:8443' }],
    ['scp-like git', { git: { url: 'git@github.com:org/repo.git' } }, { host: 'github.com' }],
    ['ssh git', { git: { url: 'ssh://git@git.example.com/a.git' } }, { host: 'git.example.com' }],
    ['file git: no host', { git: { url: 'file:///srv/repo' } }, {}],
    [
      'an insecure OCI registry',
      { oci: { url: 'oci://127.0.0.1:5000/charts/web', insecure: true } },
      { host: '127.0.0.1:5000', insecure: true },
    ],
    [
      'a chart repository',
      { chart: { url: 'https://charts.example.com/stable', name: 'web' } },
      { host: 'charts.example.com' },
    ],
    ['inline: nothing', { inline: { manifests: '' } }, {}],
  ];
  for (const [name, spec, want] of table)
    it(name, () => assert.deepEqual(sourceAccess(spec, undefined), want));
});
