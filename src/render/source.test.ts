// fetchSource's dispatch on spec.source, and decoding Secret data into credentials.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SourceError } from './errors.ts';
import { InlineSource } from './inline.ts';
import { credentialsFromSecretData, fetchSource, type Source, sourceSecretNames } from './source.ts';
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
