// Which dependencies a chart lists and lacks, and where each missing one is built from: tables.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ChartDependency,
  chartDependencies,
  type DependencyOrigin,
  dependencyOrigin,
  describeDependency,
  vendoredCharts,
} from './dependencies.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const dep = (name: string, repository?: string, version = '1.x'): ChartDependency => ({
  index: 0,
  name,
  version,
  repository,
});

describe('chartDependencies', () => {
  it("lists Chart.yaml's dependencies, Chart.lock pinning the version it names", () => {
    const chart = `apiVersion: v2
name: app
version: 1.0.0
dependencies:
  - name: redis
    version: 18.x
    repository: https://charts.example.com
    condition: redis.enabled
  - name: common
    version: 2.x.x
    repository: oci://registry.example.com/charts
    tags: [base]
  - name: local
    version: 0.1.0
    repository: file://./sub/local
`;
    const lock = `dependencies:
- name: redis
  repository: https://charts.example.com
  version: 18.1.5
digest: sha256:0
`;
    const got = chartDependencies(chart, lock);
    assert.deepEqual(got, {
      ok: true,
      value: [
        { index: 0, name: 'redis', version: '18.1.5', repository: 'https://charts.example.com' },
        { index: 1, name: 'common', version: '2.x.x', repository: 'oci://registry.example.com/charts' },
        { index: 2, name: 'local', version: '0.1.0', repository: 'file://./sub/local' },
      ],
    });
  });
  it('no dependencies: none', () =>
    assert.deepEqual(chartDependencies('apiVersion: v2\nname: a\nversion: 1.0.0\n', undefined), {
      ok: true,
      value: [],
    }));
  it('a dependency without a name, or dependencies that are not a list: the entry named', () => {
    assert.deepEqual(chartDependencies('dependencies:\n  - version: 1.0.0\n', undefined), {
      ok: false,
      problems: [{ where: 'Chart.yaml dependencies[0]', message: 'has no name' }],
    });
    assert.deepEqual(chartDependencies('dependencies: {a: 1}\n', undefined), {
      ok: false,
      problems: [{ where: 'Chart.yaml dependencies', message: 'not a list' }],
    });
  });
});

describe('vendoredCharts', () => {
  it('unpacked charts by their Chart.yaml name, archives by their file name', () => {
    const names = vendoredCharts([
      { path: 'Chart.yaml', data: enc('name: app\n') },
      { path: 'charts/cache/Chart.yaml', data: enc('name: redis\nversion: 1.0.0\n') },
      { path: 'charts/cache/templates/x.yaml', data: enc('') },
      { path: 'charts/common-2.31.4.tgz', data: enc('') },
      { path: 'charts/kube-state-metrics-5.1.0.tgz', data: enc('') },
      { path: 'charts/README.md', data: enc('') },
      { path: 'charts/deep/charts/inner/Chart.yaml', data: enc('name: inner\n') },
    ]);
    assert.deepEqual([...names].sort(), ['common', 'kube-state-metrics', 'redis']);
  });
});

describe('dependencyOrigin', () => {
  const table: [string, ChartDependency, DependencyOrigin | RegExp][] = [
    [
      'an HTTP repository',
      dep('redis', 'https://charts.example.com'),
      { kind: 'http', url: 'https://charts.example.com' },
    ],
    [
      'plain HTTP',
      dep('redis', 'http://127.0.0.1:8080/charts'),
      { kind: 'http', url: 'http://127.0.0.1:8080/charts' },
    ],
    [
      'an OCI registry: the chart is a repository below it',
      dep('common', 'oci://registry.example.com/charts/'),
      { kind: 'oci', url: 'oci://registry.example.com/charts/common' },
    ],
    ['a folder of the chart', dep('local', 'file://./sub/local/'), { kind: 'file', path: 'sub/local' }],
    ['a folder beside the chart', dep('common', 'file://../common'), /outside the chart directory/],
    ['an absolute path', dep('common', 'file:///srv/common'), /outside the chart directory/],
    ['the chart itself', dep('me', 'file://.'), /the chart itself/],
    [
      'a helm repo add name',
      dep('redis', '@bitnami'),
      /a name from `helm repo add`: write the repository's URL/,
    ],
    ['alias: form', dep('redis', 'alias:bitnami'), /a name from `helm repo add`/],
    ['no repository', dep('redis', undefined), /vendor it into charts\/ or give its repository URL/],
    [
      'another scheme',
      dep('redis', 'git://example.com/charts'),
      /want https:\/\/, http:\/\/, oci:\/\/ or file:\/\//,
    ],
  ];
  for (const [name, d, want] of table) {
    it(name, () => {
      const got = dependencyOrigin(d);
      if (want instanceof RegExp) {
        assert.equal(got.kind, 'unsupported');
        assert.match(got.kind === 'unsupported' ? got.message : '', want);
      } else assert.deepEqual(got, want);
    });
  }
  it('a dependency is described by chart, version and repository', () => {
    assert.equal(
      describeDependency(dep('redis', 'https://c.example.com', '18.x')),
      'redis 18.x from https://c.example.com',
    );
    assert.equal(
      describeDependency({ index: 1, name: 'x', version: undefined, repository: undefined }),
      'x (no version) from (no repository)',
    );
  });
});
