// A Helm chart from an OCI registry, as teams publish them: `helm package` and `helm push` (the real
// helm, built from its Go module) into the real registry, and a Release with source.oci (a semver range
// over the chart's version tags, path = the chart's directory in the archive) and render.type Helm.
// The first version rolls out with revision <version>@<digest>; pushing a newer one rolls it out
// too, picked by the range.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startRegistry, type TestRegistry } from '../../src/testenv/registry.ts';
import { ensureTools } from '../../src/testenv/tools.ts';
import { releaseOf } from '../support/release.ts';
import { reached, waitForRollout } from '../support/rollout.ts';
import { runCommand } from '../support/run-command.ts';
import { convoySystemPerFile, DEFAULT_RULES_SELECTOR } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

let registry: TestRegistry;
let helm = '';
let work = '';
const env = convoySystemPerFile({
  identity: 'source-oci-chart',
  managerArgs: ['--helm-binary', join(await ensureTools(), 'helm')],
  setUp: async () => {
    helm = join(await ensureTools(), 'helm');
    work = await mkdtemp(join(tmpdir(), 'convoy-oci-chart-'));
    registry = await startRegistry({});
  },
});
after(async () => {
  await registry?.stop();
  if (work !== '') await rm(work, { recursive: true, force: true });
});

/** helm with its own HOME and registry config, bounded like every outside call. */
async function runHelm(args: readonly string[]): Promise<string> {
  const r = await runCommand(helm, args, {
    cwd: work,
    env: { HOME: work, PATH: '/usr/bin:/bin', HELM_REGISTRY_CONFIG: join(work, 'registry.json') },
    timeoutMs: 120_000,
  });
  assert.equal(r.code, 0, `helm ${args.join(' ')}: ${r.out}`);
  return r.out;
}

/** Packages chart `web` at `version` (a ConfigMap holding `v`) and pushes it; returns the pushed digest. */
async function publish(version: string, v: string): Promise<string> {
  const dir = join(work, `web-${version}`, 'web');
  await mkdir(join(dir, 'templates'), { recursive: true });
  await writeFile(join(dir, 'Chart.yaml'), `apiVersion: v2\nname: web\nversion: ${version}\n`);
  await writeFile(join(dir, 'values.yaml'), `v: ${JSON.stringify(v)}\n`);
  await writeFile(
    join(dir, 'templates', 'config.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-config}\ndata: {v: {{ .Values.v | quote }}, chart: {{ .Chart.Version | quote }}}\n',
  );
  await runHelm(['package', dir, '--destination', work]);
  const out = await runHelm([
    'push',
    join(work, `web-${version}.tgz`),
    `oci://${registry.host}/charts`,
    '--plain-http',
  ]);
  const digest = /sha256:[0-9a-f]{64}/.exec(out)?.[0];
  assert.ok(digest, `helm push printed no digest: ${out}`);
  return digest;
}

const configValue = async (ns: string) =>
  (
    (await env.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'web-config' })) as
      | { data?: Record<string, string> }
      | undefined
  )?.data;

test('a chart pushed with helm push rolls out from source.oci; a newer version matching the range rolls out next', async () => {
  const ns = 'oci-chart';
  await env.namespace(ns);
  const one = await publish('0.1.0', 'one');
  const release = releaseOf(ns, 'web', {
    source: {
      oci: {
        url: `oci://${registry.host}/charts/web`,
        ref: { semver: '>=0.1.0 <1.0.0' },
        path: 'web',
        insecure: true,
      },
    },
    render: { type: 'Helm', targetNamespace: ns },
    syncPolicy: { interval: '1s' },
    healthAssessment: { deadline: '3s', globalRuleSetSelector: DEFAULT_RULES_SELECTOR },
    failurePolicy: { deadline: '30s', rollback: 'OnFailure' },
  });
  await env.client.create(release);
  const r1 = await waitForRollout(
    env.client,
    ns,
    'web',
    'Succeeded(0.1.0)',
    // The revision is the chart version (the tag the range picked) and the digest helm push printed.
    reached('Succeeded', `0.1.0@${one}`),
    90_000,
  );
  assert.equal(r1.status?.lastSuccessful?.revision, `0.1.0@${one}`);
  assert.deepEqual(await configValue(ns), { v: 'one', chart: '0.1.0' });

  const two = await publish('0.2.0', 'two');
  assert.notEqual(two, one);
  await waitForRollout(
    env.client,
    ns,
    'web',
    'Succeeded(0.2.0)',
    reached('Succeeded', `0.2.0@${two}`),
    90_000,
  );
  await waitFor('the ConfigMap of chart 0.2.0', async () => (await configValue(ns))?.chart === '0.2.0');
  assert.deepEqual(await configValue(ns), { v: 'two', chart: '0.2.0' });
});
