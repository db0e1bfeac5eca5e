// withDependencies with recording fetchers: which charts are fetched, from where, with which
// credentials and transport, where they land under charts/, and the problem that names a missing one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SourceError } from '../errors.ts';
import type { ChartSourceSpec, CredentialData, OciSourceSpec, SourceFile } from '../types.ts';
import { type DependencyFetchers, withDependencies } from './dependency-build.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const file = (path: string, text: string): SourceFile => ({ path, data: enc(text) });
const chart = (deps: string): SourceFile[] => [
  file('Chart.yaml', `apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n${deps}`),
  file('templates/cm.yaml', 'kind: ConfigMap\n'),
];

type Call =
  | { kind: 'chart'; spec: ChartSourceSpec; credentials: CredentialData | undefined }
  | { kind: 'oci'; spec: OciSourceSpec; credentials: CredentialData | undefined };

function recording(fail?: string): { fetchers: DependencyFetchers; calls: Call[] } {
  const calls: Call[] = [];
  const fetchers: DependencyFetchers = {
    chart: {
      fetch: async (spec, credentials) => {
        calls.push({ kind: 'chart', spec, credentials });
        if (fail !== undefined) throw new SourceError(fail);
        return { revision: '1', files: [file('Chart.yaml', `name: ${spec.name}\n`)] };
      },
    },
    oci: {
      fetch: async (spec, credentials) => {
        calls.push({ kind: 'oci', spec, credentials });
        const name = spec.url.split('/').at(-1) ?? '';
        return {
          revision: '1',
          files: [file(`${name}/Chart.yaml`, `name: ${name}\n`), file(`${name}/values.yaml`, '')],
        };
      },
    },
  };
  return { fetchers, calls };
}

const paths = (files: readonly SourceFile[]) => files.map((f) => f.path);

/** The paths withDependencies adds after the source's own files (no credentials, default transport). */
async function addedPaths(files: SourceFile[], fetchers: DependencyFetchers): Promise<string[]> {
  const got = await withDependencies(files, fetchers, undefined, undefined);
  assert.ok(got.ok);
  return paths(got.value).slice(files.length);
}

describe('withDependencies', () => {
  it('builds what charts/ lacks from an HTTP repository and a registry, and leaves the rest', async () => {
    const { fetchers, calls } = recording();
    const files = [
      ...chart(`  - {name: redis, version: 18.x, repository: "https://charts.example.com/stable"}
  - {name: common, version: 2.31.4, repository: "oci://127.0.0.1:5000/charts"}
  - {name: vendored, version: 1.0.0, repository: "https://charts.example.com/stable"}
  - {name: redis, alias: cache, version: 18.x, repository: "https://charts.example.com/stable"}
`),
      file('charts/vendored-1.0.0.tgz', ''),
    ];
    assert.deepEqual(await addedPaths(files, fetchers), [
      'charts/redis/Chart.yaml',
      'charts/common/Chart.yaml',
      'charts/common/values.yaml',
    ]);
    assert.deepEqual(calls, [
      {
        kind: 'chart',
        spec: { url: 'https://charts.example.com/stable', name: 'redis', version: '18.x' },
        credentials: undefined,
      },
      {
        kind: 'oci',
        spec: { url: 'oci://127.0.0.1:5000/charts/common', ref: { tag: '2.31.4' }, insecure: true },
        credentials: undefined,
      },
    ]);
  });

  it("the Release's credentials go to its source's host only; a docker config goes everywhere", async () => {
    const { fetchers, calls } = recording();
    const files = chart(`  - {name: a, version: 1.x, repository: "https://charts.example.com"}
  - {name: b, version: 1.x, repository: "https://elsewhere.example.com"}
  - {name: c, version: "^1.2", repository: "oci://registry.example.com/charts"}
`);
    const credentials = { username: 'u', password: 'p', '.dockerconfigjson': '{"auths":{}}' };
    const got = await withDependencies(
      files,
      fetchers,
      { credentials, host: 'charts.example.com' },
      undefined,
    );
    assert.ok(got.ok);
    assert.deepEqual(
      calls.map((c) => [c.spec.url, c.credentials]),
      [
        ['https://charts.example.com', credentials],
        ['https://elsewhere.example.com', { '.dockerconfigjson': '{"auths":{}}' }],
        ['oci://registry.example.com/charts/c', { '.dockerconfigjson': '{"auths":{}}' }],
      ],
    );
    const oci = calls[2];
    assert.deepEqual(
      oci?.kind === 'oci' ? oci.spec.ref : undefined,
      { semver: '^1.2' },
      'a range is a semver ref',
    );
    assert.equal(oci?.kind === 'oci' ? oci.spec.insecure : undefined, undefined, 'TLS off loopback');
  });

  it('plain HTTP to a remote registry only when the Release says insecure for that host', async () => {
    const { fetchers, calls } = recording();
    const files = chart(
      `  - {name: c, version: 1.0.0+build.1, repository: "oci://registry.internal:5000/charts"}\n`,
    );
    await withDependencies(files, fetchers, { host: 'registry.internal:5000', insecure: true }, undefined);
    const call = calls[0];
    assert.deepEqual(call?.kind === 'oci' ? call.spec : undefined, {
      url: 'oci://registry.internal:5000/charts/c',
      ref: { tag: '1.0.0_build.1' },
      insecure: true,
    });
  });

  it('file:// copies a folder of the source under charts/', async () => {
    const { fetchers, calls } = recording();
    const files = [
      ...chart('  - {name: local, version: 0.1.0, repository: "file://./sub/local"}\n'),
      file('sub/local/Chart.yaml', 'name: local\n'),
      file('sub/local/templates/a.yaml', 'kind: ConfigMap\n'),
    ];
    assert.deepEqual(await addedPaths(files, fetchers), [
      'charts/local/Chart.yaml',
      'charts/local/templates/a.yaml',
    ]);
    assert.deepEqual(calls, []);
  });

  it('a dependency that cannot be built names the chart, the version and the repository', async () => {
    const { fetchers } = recording(
      'spec.source.chart.version: no version of chart redis in https://charts.example.com/ matches "99.x" (versions: 18.1.5)',
    );
    const files = chart(`  - {name: redis, version: 99.x, repository: "https://charts.example.com"}
  - {name: common, version: 1.0.0, repository: "@bitnami"}
  - {name: up, version: 1.0.0, repository: "file://../up"}
`);
    assert.deepEqual(await withDependencies(files, fetchers, undefined, undefined), {
      ok: false,
      problems: [
        {
          where: 'Chart.yaml dependencies[0]',
          message:
            'chart redis 99.x from https://charts.example.com: no version of chart redis in https://charts.example.com/ matches "99.x" (versions: 18.1.5)',
        },
        {
          where: 'Chart.yaml dependencies[1]',
          message:
            'chart common 1.0.0 from @bitnami: repository "@bitnami" is a name from `helm repo add`: write the repository\'s URL in Chart.yaml',
        },
        {
          where: 'Chart.yaml dependencies[2]',
          message:
            'chart up 1.0.0 from file://../up: file://../up is outside the chart directory, and convoy gets only the files under the source path: vendor the chart into charts/ (helm dependency build), or move it under the chart directory',
        },
      ],
    });
  });

  it('a chart without dependencies, or with all of them vendored, is left as it is', async () => {
    const { fetchers, calls } = recording();
    const plain = chart('  []\n').slice(1);
    const files = [file('Chart.yaml', 'apiVersion: v2\nname: app\nversion: 1.0.0\n'), ...plain];
    const got = await withDependencies(files, fetchers, undefined, undefined);
    assert.deepEqual(got, { ok: true, value: files });
    assert.deepEqual(calls, []);
  });
});
