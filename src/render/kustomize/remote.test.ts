// Which kustomization entries are remote: a table of addresses, and the problems named per file and field.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isKustomizationFile, isRemote, remoteEntries } from './remote.ts';

const enc = (s: string) => new TextEncoder().encode(s);

describe('isRemote', () => {
  const table: [string, boolean][] = [
    ['base', false],
    ['../base', false],
    ['deploy.yaml', false],
    ['overlays/prod', false],
    ['https://example.com/app.yaml', true],
    ['http://example.com/app.yaml', true],
    ['git::https://github.com/org/repo//base', true],
    ['ssh://git@github.com/org/repo.git', true],
    ['git@github.com:org/repo.git', true],
    ['github.com/org/repo//base?ref=v1', true],
    ['gitlab.com/org/repo', true],
    ['some/dir?ref=main', true],
  ];
  for (const [entry, remote] of table) {
    it(`${entry} → ${remote}`, () => assert.equal(isRemote(entry), remote));
  }
});

describe('remoteEntries', () => {
  it('names the file and field of every remote entry and refuses helmCharts', () => {
    const problems = remoteEntries([
      {
        path: 'kustomization.yaml',
        data: enc('resources: [base, https://x.example/a.yaml]\ncomponents: [github.com/o/r//c]\n'),
      },
      { path: 'base/kustomization.yml', data: enc('resources: [web.yaml]\nhelmCharts: [{name: x}]\n') },
      { path: 'web.yaml', data: enc('resources: [https://ignored.example/not-a-kustomization]\n') },
    ]);
    assert.deepEqual(
      problems.map((p) => p.where),
      [
        'kustomization.yaml resources[1]',
        'kustomization.yaml components[0]',
        'base/kustomization.yml helmCharts',
      ],
    );
    assert.match(problems[0]?.message ?? '', /allowRemoteResources/);
  });
  it('leaves syntax errors to kustomize, which reports their position', () => {
    assert.deepEqual(remoteEntries([{ path: 'kustomization.yaml', data: enc('resources: [\n') }]), []);
  });
  it('knows the three kustomization file names', () => {
    assert.deepEqual(
      ['kustomization.yaml', 'a/kustomization.yml', 'Kustomization', 'kustomize.yaml'].map(
        isKustomizationFile,
      ),
      [true, true, true, false],
    );
  });
});
