// spec.source.oci end to end: the real registry (TLS with the testenv's CA, htpasswd auth, Secrets
// for both), the real control plane and both convoy processes. An artifact pushed under a tag rolls
// out with its digest as the revision and the renderRef `convoy render oci://` computes; a new push
// whose pods never get Ready rolls back; a semver range follows the newest matching tag; missing or
// wrong credentials, an unknown tag, an unknown digest, a corrupted blob, a hostile layer and an
// oversized one are each Ready=False with a message naming the field, an Event, and nothing applied.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { after, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { API_VERSION } from '../../src/api/constants.ts';
import type { Release } from '../../src/api/types.ts';
import { renderOci } from '../../src/cli/local-render.ts';
import { RegistryClient } from '../../src/render/oci/client.ts';
import { pushArtifact } from '../../src/render/oci/push.ts';
import { parseOciUrl } from '../../src/render/oci/reference.ts';
import { pushLayer, rawTarGz } from '../../src/render/oci/testsupport.ts';
import { startRegistry, type TestRegistry } from '../../src/testenv/registry.ts';
import { condition } from '../support/release.ts';
import { deployment, events, reached, waitForRollout } from '../support/rollout.ts';
import { convoySystemPerFile, DEFAULT_RULES_SELECTOR } from '../support/system.ts';
import { waitFor } from '../support/wait.ts';

let registry: TestRegistry;
const USER = 'deployer';
const DOCKER_CONFIG = 'kubernetes.io/dockerconfigjson';
const PASSWORD = 'correct-horse';
const env = convoySystemPerFile({
  identity: 'source-oci',
  setUp: async () => {
    registry = await startRegistry({ tls: true, auth: { username: USER, password: PASSWORD } });
  },
});

// after() of convoySystemPerFile stops the control plane; the registry dies with this process at the
// latest (exit handlers, watchdog), and is stopped here first.

after(() => registry?.stop());

const creds = () => ({ type: 'basic' as const, username: USER, password: PASSWORD });
const repoOf = (name: string) => parseOciUrl(`oci://${registry.host}/${name}`);
const push = (name: string, tag: string, manifests: Record<string, string>) =>
  pushArtifact(
    Object.entries(manifests).map(([path, text]) => ({ path, data: Buffer.from(text) })),
    repoOf(name),
    tag,
    { credentials: creds(), caPem: registry.caPem ?? '', insecure: false },
  );
/** A client of the test registry for the repository `name`, as the source would build it. */
const registryClient = (name: string) =>
  new RegistryClient(repoOf(name), {
    credentials: creds(),
    caPem: registry.caPem ?? '',
    insecure: false,
    timeoutMs: 10_000,
    idleMs: 5_000,
    maxManifestBytes: 1 << 20,
    maxTags: 10,
  });

/** A Secret with string data (the API server encodes it). */
const secret = (ns: string, name: string, stringData: Record<string, string>, type = 'Opaque') =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns },
    type,
    stringData,
  }) as unknown as Parameters<typeof env.client.create>[0];

/** The registry's Secrets in `ns`: a docker-config Secret and a CA bundle. */
async function secrets(ns: string, password = PASSWORD): Promise<void> {
  await env.client.create(
    secret(ns, 'registry', { '.dockerconfigjson': registry.dockerConfigJson(USER, password) }, DOCKER_CONFIG),
  );
  await env.client.create(secret(ns, 'registry-ca', { 'ca.crt': registry.caPem ?? '' }));
}

function ociRelease(ns: string, name: string, oci: Record<string, unknown>): Release {
  return {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name, namespace: ns },
    spec: {
      source: {
        oci: { secretRef: { name: 'registry' }, certSecretRef: { name: 'registry-ca' }, ...oci } as never,
      },
      render: { targetNamespace: ns },
      syncPolicy: { interval: '1s' },
      healthAssessment: { deadline: '3s', globalRuleSetSelector: DEFAULT_RULES_SELECTOR },
      failurePolicy: { deadline: '8s', rollback: 'OnFailure' },
    },
  };
}

const configMap = (name: string, v: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {v: "${v}"}\n`;

describe('spec.source.oci', { concurrency: true }, () => {
  test('a pushed artifact rolls out (digest as revision, the renderRef of convoy render); an unhealthy push rolls back', async () => {
    const ns = 'oci-roll';
    await env.namespace(ns);
    await secrets(ns);
    const one = await push('roll/app', 'stable', {
      'deploy/web.yaml': deployment('web', 'v1', 'healthy'),
      'deploy/cfg.yaml': configMap('cfg', 'one'),
    });
    await env.client.create(
      ociRelease(ns, 'app', {
        url: `oci://${registry.host}/roll/app`,
        ref: { tag: 'stable' },
        path: 'deploy',
      }),
    );
    const r1 = await waitForRollout(
      env.client,
      ns,
      'app',
      'Succeeded(one)',
      reached('Succeeded', one.digest),
      90_000,
    );
    assert.equal(r1.status?.lastSuccessful?.revision, one.digest);
    const local = await renderOci(
      {
        render: { targetNamespace: ns },
        source: { oci: { url: `oci://${registry.host}/roll/app`, ref: { tag: 'stable' }, path: 'deploy' } },
      },
      { credentials: creds(), caPem: registry.caPem ?? '' },
      { target: env.client, namespace: ns },
    );
    assert.equal(
      local.renderRef,
      r1.status?.rollout?.renderRef,
      'convoy render computes the controller renderRef',
    );

    const two = await push('roll/app', 'stable', {
      'deploy/web.yaml': deployment('web', 'v2', 'never-ready'),
      'deploy/cfg.yaml': configMap('cfg', 'two'),
    });
    await waitForRollout(env.client, ns, 'app', 'Progressing(two)', (r) => r.revision === two.digest, 60_000);
    const rb = await waitForRollout(
      env.client,
      ns,
      'app',
      'RolledBack(two)',
      (r) => r.state === 'RolledBack',
      90_000,
    );
    assert.equal(rb.status?.lastAttempted?.renderRef, r1.status?.rollout?.renderRef);
    const cfg = await env.client.get<{ data?: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'cfg',
    });
    assert.equal(cfg?.data?.v, 'one', 'the whole render came back, ConfigMap included');
  });

  test('a semver range follows the newest matching tag', async () => {
    const ns = 'oci-semver';
    await env.namespace(ns);
    await secrets(ns);
    const at = (v: string) => ({ 'cm.yaml': configMap('semver', v) });
    await push('semver/app', '1.0.0', at('1.0.0'));
    const p12 = await push('semver/app', '1.2.0', at('1.2.0'));
    await push('semver/app', '2.0.0', at('2.0.0'));
    await push('semver/app', '1.3.0-rc.1', at('1.3.0-rc.1'));
    await env.client.create(
      ociRelease(ns, 'app', { url: `oci://${registry.host}/semver/app`, ref: { semver: '>=1.0.0 <2.0.0' } }),
    );
    await waitForRollout(env.client, ns, 'app', 'Succeeded(1.2.0)', reached('Succeeded', p12.digest), 90_000);
    const p13 = await push('semver/app', '1.3.0', at('1.3.0'));
    await waitForRollout(env.client, ns, 'app', 'Succeeded(1.3.0)', reached('Succeeded', p13.digest), 90_000);
    const live = await env.client.get<{ data?: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'semver',
    });
    assert.equal(live?.data?.v, '1.3.0');
  });

  test('bad input: each a Ready=False condition naming the field, an Event, nothing applied', async () => {
    const ns = 'oci-bad';
    await env.namespace(ns);
    await secrets(ns);
    await env.client.create(
      secret(
        ns,
        'wrong',
        { '.dockerconfigjson': registry.dockerConfigJson(USER, 'not-the-password') },
        DOCKER_CONFIG,
      ),
    );
    const good = await push('bad/app', 'v1', { 'cm.yaml': configMap('must-not-exist', 'x') });
    const url = `oci://${registry.host}/bad/app`;

    // A corrupted layer: the registry's own storage rewritten under the same digest.
    const corrupt = await push('bad/corrupt', 'v1', { 'cm.yaml': configMap('must-not-exist', 'corrupt') });
    const blob = registry.blobPath(corrupt.layerDigest);
    assert.ok(existsSync(blob));
    await writeFile(blob, gzipSync(Buffer.alloc(2048)));

    // A hostile layer: a symlink that escapes.
    const client = registryClient('bad/hostile');
    await pushLayer(client, 'v1', rawTarGz({ name: 'link.yaml', type: '2', link: '/etc/passwd' }));
    // An oversized artifact: its descriptor says 100 MiB, over the 64 MiB limit; nothing is downloaded.
    const bigClient = registryClient('bad/big');
    await pushLayer(
      bigClient,
      'v1',
      rawTarGz({ name: 'cm.yaml', data: configMap('must-not-exist', 'big') }),
      100 << 20,
    );

    const missing = `sha256:${'0'.repeat(64)}`;
    const cases: [string, Record<string, unknown>, RegExp][] = [
      [
        'no-creds',
        { url, ref: { tag: 'v1' }, secretRef: undefined },
        /spec\.source\.oci\.secretRef: oci:\/\/127\.0\.0\.1:\d+\/bad\/app needs credentials \(401 Unauthorized/,
      ],
      [
        'wrong-creds',
        { url, ref: { tag: 'v1' }, secretRef: { name: 'wrong' } },
        /spec\.source\.oci\.secretRef: 127\.0\.0\.1:\d+ refused the credentials for oci:\/\/127\.0\.0\.1:\d+\/bad\/app \(401/,
      ],
      [
        'no-tag',
        { url, ref: { tag: 'v9' } },
        /spec\.source\.oci\.ref\.tag: tag "v9" not found in oci:\/\/127\.0\.0\.1:\d+\/bad\/app \(404/,
      ],
      [
        'no-digest',
        { url, ref: { digest: missing } },
        new RegExp(`spec\\.source\\.oci\\.ref\\.digest: manifest ${missing} not found`),
      ],
      [
        'corrupt',
        { url: `oci://${registry.host}/bad/corrupt`, ref: { tag: 'v1' } },
        /spec\.source\.oci: digest mismatch: layer sha256:[0-9a-f]{64} of oci:\/\/127\.0\.0\.1:\d+\/bad\/corrupt should be/,
      ],
      [
        'hostile',
        { url: `oci://${registry.host}/bad/hostile`, ref: { tag: 'v1' } },
        /spec\.source\.oci: the artifact oci:\/\/127\.0\.0\.1:\d+\/bad\/hostile \(tag "v1"\) is refused: entry "link\.yaml": links to "\/etc\/passwd", outside the archive/,
      ],
      [
        'oversized',
        { url: `oci://${registry.host}/bad/big`, ref: { tag: 'v1' } },
        /spec\.source\.oci: the layer of oci:\/\/127\.0\.0\.1:\d+\/bad\/big \(tag "v1", sha256:[0-9a-f]{64}\) is 104857600 bytes, over the limit of 67108864/,
      ],
    ];
    for (const [name, oci] of cases) await env.client.create(ociRelease(ns, name, oci));
    for (const [name, , want] of cases) {
      const r = await env.waitForRelease(
        ns,
        name,
        `SourceFailed (${name})`,
        (x) => condition(x, 'Ready')?.reason === 'SourceFailed',
      );
      const ready = condition(r, 'Ready');
      assert.equal(ready?.status, 'False');
      assert.match(ready?.message ?? '', want, name);
      assert.doesNotMatch(ready?.message ?? '', /not-the-password|correct-horse/);
      await waitFor(`the Event of ${name}`, async () =>
        (await events(env.client, ns, name)).find((e) => want.test(e.message ?? '')),
      );
    }
    assert.equal(
      await env.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'must-not-exist' }),
      undefined,
      'nothing applied',
    );
    assert.ok(good.digest.startsWith('sha256:'));
  });
});
