// A chart whose charts/ folder is not in the source (a `.gitignore`d charts/, as kube-prometheus-stack
// has) renders with its dependencies built as Argo CD and Flux build them: one from an HTTP chart
// repository behind basic auth (the real `helm repo index`, the Release's credentials), one pushed with
// the real `helm push` to the real OCI registry, one from a folder of the source (`file://`), and one
// disabled by its condition (fetched, not rendered: helm applies conditions when it renders). A version
// the repository does not have is a render failure naming the chart, the version and the repository.
// The render is the controller's own code (renderFiles → renderManifests → the Helm renderer).
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { renderFiles } from '../../src/cli/local-render.ts';
import { RenderError } from '../../src/render/errors.ts';
import type { SourceFile } from '../../src/render/types.ts';
import { type HelmRepo, startHelmRepo } from '../../src/testenv/helm-repo.ts';
import { startRegistry, type TestRegistry } from '../../src/testenv/registry.ts';
import { ensureTools } from '../../src/testenv/tools.ts';
import { runCommand } from '../support/run-command.ts';

const AUTH = { username: 'ci', password: 's3cret' };
let repo: HelmRepo | undefined;
let registry: TestRegistry | undefined;
let work = '';

const configMap = (name: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {chart: {{ .Chart.Name | quote }}, version: {{ .Chart.Version | quote }}}\n`;

before(async () => {
  const helm = join(await ensureTools(), 'helm');
  work = await mkdtemp(join(tmpdir(), 'convoy-helm-deps-'));
  repo = await startHelmRepo({ auth: AUTH });
  registry = await startRegistry({});
  for (const v of ['1.0.0', '1.1.0'])
    await repo.addChart('cache', v, { 'templates/cm.yaml': configMap('cache'), 'values.yaml': '' });
  await repo.addChart('extras', '0.1.0', { 'templates/cm.yaml': configMap('extras'), 'values.yaml': '' });

  // The library chart in the registry: helm package, helm push (plain HTTP on loopback).
  const lib = join(work, 'lib');
  await mkdir(join(lib, 'templates'), { recursive: true });
  await writeFile(join(lib, 'Chart.yaml'), 'apiVersion: v2\nname: lib\nversion: 0.2.0\n');
  await writeFile(join(lib, 'templates', 'cm.yaml'), configMap('lib'));
  const helmEnv = { HOME: work, PATH: '/usr/bin:/bin', HELM_REGISTRY_CONFIG: join(work, 'registry.json') };
  for (const args of [
    ['package', lib, '--destination', work],
    ['push', join(work, 'lib-0.2.0.tgz'), `oci://${registry.host}/charts`, '--plain-http'],
  ]) {
    const r = await runCommand(helm, args, { cwd: work, env: helmEnv, timeoutMs: 120_000 });
    assert.equal(r.code, 0, `helm ${args.join(' ')}: ${r.out}`);
  }
});
after(async () => {
  await repo?.stop();
  await registry?.stop();
  if (work !== '') await rm(work, { recursive: true, force: true });
});

const enc = (s: string) => new TextEncoder().encode(s);

function appChart(cacheVersion: string): SourceFile[] {
  assert.ok(repo && registry);
  const chart = `apiVersion: v2
name: app
version: 1.0.0
dependencies:
  - name: cache
    version: "${cacheVersion}"
    repository: ${repo.url}
  - name: lib
    version: 0.2.0
    repository: oci://${registry.host}/charts
  - name: local
    version: 0.1.0
    repository: file://./modules/local
  - name: extras
    version: 0.1.0
    repository: ${repo.url}
    condition: extras.enabled
`;
  return [
    { path: 'Chart.yaml', data: enc(chart) },
    { path: 'values.yaml', data: enc('extras: {enabled: false}\n') },
    { path: 'templates/app.yaml', data: enc(configMap('app')) },
    { path: 'modules/local/Chart.yaml', data: enc('apiVersion: v2\nname: local\nversion: 0.1.0\n') },
    { path: 'modules/local/templates/cm.yaml', data: enc(configMap('local')) },
  ];
}

/** Renders as the controller does for a git source on the repository's host with its Secret. */
function render(files: readonly SourceFile[]) {
  assert.ok(repo);
  return renderFiles(
    { render: { type: 'Helm', targetNamespace: 'app' } },
    {
      revision: 'test',
      files,
      access: { credentials: AUTH, host: new URL(repo.url).host },
    },
    { namespace: 'app', name: 'app' },
  );
}

test('missing dependencies are built from an HTTP repository, an OCI registry and the source; conditions hold', async () => {
  const out = await render(appChart('1.x'));
  const cms = new Map(
    out.render.objects
      .filter((o) => o.kind === 'ConfigMap')
      .map((o) => [o.metadata.name, o.data as Record<string, string> | undefined]),
  );
  assert.deepEqual([...cms.keys()].sort(), ['app', 'cache', 'lib', 'local']);
  assert.deepEqual(cms.get('cache'), { chart: 'cache', version: '1.1.0' }, 'the newest 1.x');
  assert.deepEqual(cms.get('lib'), { chart: 'lib', version: '0.2.0' });
  assert.equal(cms.has('extras'), false, 'extras.enabled is false');
  assert.ok(
    (repo?.requests.get('/charts/extras-0.1.0.tgz') ?? 0) >= 1,
    'a disabled dependency is still built',
  );
});

test('a version the repository lacks fails the render naming the chart, the version and the repository', async () => {
  const err = await render(appChart('9.x')).then(
    () => assert.fail('rendered'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof RenderError, String(err));
  assert.match(
    err.message,
    new RegExp(
      `Chart\\.yaml dependencies\\[0\\]: chart cache 9\\.x from ${repo?.url.replace(/[.]/g, '\\.')}: no version of chart cache in .* matches "9\\.x" \\(versions: 1\\.1\\.0, 1\\.0\\.0\\)`,
    ),
  );
});

test('without the credentials the repository asks for, the dependency says they are missing', async () => {
  const files = appChart('1.x');
  const err = await renderFiles(
    { render: { type: 'Helm' } },
    { revision: 'test', files },
    { namespace: 'app', name: 'app' },
  ).then(
    () => assert.fail('rendered'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof RenderError, String(err));
  assert.match(
    err.message,
    /chart cache 1\.x from .*: 127\.0\.0\.1:\d+ answered 401 for index\.yaml: the credentials are missing or wrong/,
  );
});
