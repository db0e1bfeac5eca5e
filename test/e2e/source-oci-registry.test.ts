// The OCI source against the real registry (distribution, built from its Go module), no cluster:
// push then pull by tag, digest and semver range; htpasswd basic auth over TLS with the testenv's CA;
// 401 without credentials, wrong credentials, 404, plain HTTP refused unless insecure, a blob
// corrupted in the registry's storage (digest mismatch), a hostile layer; the registry leaves no
// process or directory behind. `convoy push artifact` and `convoy render oci://` through the CLI.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { renderOci } from '../../src/cli/local-render.ts';
import { runConvoy } from '../../src/cli/testsupport.ts';
import { MEDIA, RegistryClient } from '../../src/render/oci/client.ts';
import { pushArtifact } from '../../src/render/oci/push.ts';
import { type OciRepo, parseOciUrl } from '../../src/render/oci/reference.ts';
import { OciSource } from '../../src/render/oci/source.ts';
import { pushLayer, rawTarGz } from '../../src/render/oci/testsupport.ts';
import { isAlive } from '../../src/testenv/index.ts';
import { startRegistry, type TestRegistry } from '../../src/testenv/registry.ts';

const cm = (name: string, v: string) =>
  Buffer.from(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {v: "${v}"}\n`);
const files = (v: string) => [
  { path: 'app/cm.yaml', data: cm('app', v) },
  { path: 'README.md', data: Buffer.from('not a manifest\n') },
];

/** Pushes `files(v)` to `repo`:`tag` over plain HTTP without credentials (the `plain` registry, or a test's own). */
const pushPlain = (repo: OciRepo, tag: string, v: string) =>
  pushArtifact(files(v), repo, tag, { credentials: { type: 'none' }, insecure: true });

/** A registry of the test's own (it stops it midway) holding `files(v)` at `path`:`tag`. */
async function ownRegistryWith(path: string, tag: string, v: string) {
  const r = await startRegistry({});
  const repo = parseOciUrl(`oci://${r.host}/${path}`);
  return { r, repo, pushed: await pushPlain(repo, tag, v) };
}

let secure: TestRegistry;
let plain: TestRegistry;
const creds = { type: 'basic' as const, username: 'ci', password: 'pa55-word' };

before(async () => {
  [secure, plain] = await Promise.all([
    startRegistry({ tls: true, auth: { username: 'ci', password: 'pa55-word' } }),
    startRegistry({}),
  ]);
});
after(async () => {
  await Promise.all([secure?.stop(), plain?.stop()]);
});

const secureSpec = (
  repo: string,
  ref?: { tag?: string; semver?: string; digest?: string },
  path?: string,
) => ({
  url: `oci://${secure.host}/${repo}`,
  ...(ref === undefined ? {} : { ref }),
  ...(path === undefined ? {} : { path }),
});
const secrets = () => ({ '.dockerconfigjson': secure.dockerConfigJson(), 'ca.crt': secure.caPem ?? '' });

describe('OCI source on the real registry', () => {
  it('pushes and pulls by tag, digest and semver range; the digest is the revision', async () => {
    const repo = parseOciUrl(`oci://${secure.host}/apps/web`);
    const push = (tag: string, v: string) =>
      pushArtifact(files(v), repo, tag, { credentials: creds, caPem: secure.caPem ?? '', insecure: false });
    const p1 = await push('1.0.0', 'one');
    const again = await push('1.0.0', 'one');
    assert.equal(again.digest, p1.digest, 'the same files push to the same digest');
    const p2 = await push('1.2.0', 'two');
    await push('2.0.0', 'three');
    await push('1.3.0-rc.1', 'rc');
    const source = new OciSource();
    const byTag = await source.fetch(secureSpec('apps/web', { tag: '1.0.0' }, 'app'), secrets());
    assert.equal(byTag.revision, p1.digest);
    assert.deepEqual(
      byTag.files.map((f) => [f.path, Buffer.from(f.data).toString()]),
      [['cm.yaml', cm('app', 'one').toString()]],
    );
    const byRange = await source.fetch(secureSpec('apps/web', { semver: '>=1.0.0 <2.0.0' }), secrets());
    assert.equal(byRange.revision, p2.digest, 'the newest matching tag, pre-releases left out');
    const byDigest = await source.fetch(secureSpec('apps/web', { digest: p2.digest }), secrets());
    assert.equal(byDigest.revision, p2.digest);
    assert.deepEqual(
      byDigest.files.map((f) => f.path),
      ['README.md', 'app/cm.yaml'],
    );
    // What `convoy render oci://…` computes is what the controller would: same source, same renderer.
    const r = await renderOci(
      { source: { oci: secureSpec('apps/web', { tag: '1.2.0' }, 'app') } },
      { credentials: creds, caPem: secure.caPem ?? '' },
    );
    assert.equal(r.revision, p2.digest);
    assert.equal(r.render.objects[0]?.metadata.name, 'app');
  });

  it('refuses clearly: no credentials, wrong credentials, unknown tag, untrusted CA, plain HTTP', async () => {
    const source = new OciSource();
    await assert.rejects(
      source.fetch(secureSpec('apps/web', { tag: '1.0.0' }), { 'ca.crt': secure.caPem ?? '' }),
      /spec\.source\.oci\.secretRef: oci:\/\/127\.0\.0\.1:\d+\/apps\/web needs credentials \(401 Unauthorized/,
    );
    const wrong = {
      '.dockerconfigjson': secure.dockerConfigJson('ci', 'nope'),
      'ca.crt': secure.caPem ?? '',
    };
    await assert.rejects(
      source.fetch(secureSpec('apps/web', { tag: '1.0.0' }), wrong),
      (e: Error) =>
        /spec\.source\.oci\.secretRef: 127\.0\.0\.1:\d+ refused the credentials .*\(401 Unauthorized/.test(
          e.message,
        ) && !e.message.includes('nope'),
    );
    await assert.rejects(
      source.fetch(secureSpec('apps/web', { tag: '9.9.9' }), secrets()),
      /spec\.source\.oci\.ref\.tag: tag "9\.9\.9" not found in oci:\/\/127\.0\.0\.1:\d+\/apps\/web \(404: MANIFEST_UNKNOWN/,
    );
    await assert.rejects(
      source.fetch(secureSpec('apps/web', { semver: '>=5' }), secrets()),
      /spec\.source\.oci\.ref\.semver: no tag of oci:\/\/127\.0\.0\.1:\d+\/apps\/web matches ">=5" \(4 tags\)/,
    );
    await assert.rejects(
      source.fetch(secureSpec('apps/web'), { '.dockerconfigjson': secure.dockerConfigJson() }),
      /certificate is not trusted: name a Secret with ca\.crt in certSecretRef/,
    );
    await assert.rejects(
      source.fetch({ url: `oci://${plain.host}/x` }, undefined),
      /does it speak plain HTTP\? then set insecure: true/,
    );
  });

  it('a blob corrupted in storage is a digest mismatch; a hostile layer is refused naming its entry', async () => {
    const repo = parseOciUrl(`oci://${plain.host}/bad`);
    const pushed = await pushPlain(repo, 'corrupt', 'x');
    const blob = plain.blobPath(pushed.layerDigest);
    assert.ok(existsSync(blob), `the registry keeps the layer at ${blob}`);
    const tampered = gzipSync(Buffer.alloc(1024));
    await writeFile(blob, tampered);
    const source = new OciSource();
    await assert.rejects(
      source.fetch({ url: repo.display, ref: { tag: 'corrupt' }, insecure: true }, undefined),
      new RegExp(
        `spec\\.source\\.oci: digest mismatch: layer ${pushed.layerDigest} of oci://127\\.0\\.0\\.1:\\d+/bad should be ${pushed.layerDigest} but is sha256:`,
      ),
    );

    // A layer whose tar climbs out, pushed by hand as any tool could.
    const client = new RegistryClient(repo, {
      credentials: { type: 'none' },
      insecure: true,
      timeoutMs: 10_000,
      idleMs: 5_000,
      maxManifestBytes: 1 << 20,
      maxTags: 10,
    });
    await pushLayer(client, 'evil', rawTarGz({ name: '../../etc/cron.d/evil', data: 'evil' }));
    await assert.rejects(
      source.fetch({ url: repo.display, ref: { tag: 'evil' }, insecure: true }, undefined),
      /spec\.source\.oci: the artifact oci:\/\/127\.0\.0\.1:\d+\/bad \(tag "evil"\) is refused: entry "\.\.\/\.\.\/etc\/cron\.d\/evil": path climbs out with "\.\."/,
    );
  });

  it('convoy push artifact prints the digest; convoy render oci:// prints the renderRef', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'convoy-push-'));
    try {
      await writeFile(join(dir, 'cm.yaml'), cm('pushed', 'cli'));
      const ca = join(dir, '..', `${dir.split('/').pop()}-ca.pem`);
      await writeFile(ca, secure.caPem ?? '');
      const env = { CONVOY_REGISTRY_CREDS: 'ci:pa55-word', HOME: dir, DOCKER_CONFIG: dir };
      const push = await runConvoy(
        [
          'push',
          'artifact',
          dir,
          `oci://${secure.host}/cli/app:v1`,
          '--ca-file',
          ca,
          '--source',
          'https://git.example/app.git',
          '--revision',
          'main@sha1:abc',
        ],
        { env },
      );
      assert.equal(push.code, 0, push.stderr);
      const digest = push.stdout.trim();
      assert.match(digest, /^sha256:[0-9a-f]{64}$/);
      assert.match(
        push.stderr,
        new RegExp(`pushed 1 files .* to oci://127\\.0\\.0\\.1:\\d+/cli/app:v1@${digest}`),
      );
      const manifest = await new RegistryClient(parseOciUrl(`oci://${secure.host}/cli/app`), {
        credentials: creds,
        caPem: secure.caPem ?? '',
        insecure: false,
        timeoutMs: 10_000,
        idleMs: 5_000,
        maxManifestBytes: 1 << 20,
        maxTags: 10,
      }).manifest(digest);
      assert.equal(manifest.annotations['org.opencontainers.image.source'], 'https://git.example/app.git');
      assert.equal(manifest.annotations['org.opencontainers.image.revision'], 'main@sha1:abc');
      assert.equal(manifest.config?.mediaType, MEDIA.fluxConfig);
      assert.equal(manifest.layers[0]?.mediaType, MEDIA.fluxContent);
      const render = await runConvoy(
        ['render', `oci://${secure.host}/cli/app@${digest}`, '--ca-file', ca, '--ref-only'],
        { env },
      );
      assert.equal(render.code, 0, render.stderr);
      const local = await renderOci(
        { source: { oci: { url: `oci://${secure.host}/cli/app`, ref: { digest } } } },
        { credentials: creds, caPem: secure.caPem ?? '' },
      );
      assert.equal(render.stdout.trim(), local.renderRef);
      const denied = await runConvoy(
        ['push', 'artifact', dir, `oci://${secure.host}/cli/app:v2`, '--ca-file', ca],
        { env: { HOME: dir, DOCKER_CONFIG: dir, CONVOY_REGISTRY_CREDS: '' } },
      );
      assert.equal(denied.code, 2);
      assert.match(denied.stderr, /needs credentials \(401 Unauthorized/);
      // Bad input: a plain-HTTP registry without --insecure, a reference without a tag.
      const bad: ReadonlyArray<readonly [string, string[], RegExp]> = [
        [
          'plain HTTP without --insecure',
          [`oci://${plain.host}/cli/app:v1`],
          new RegExp(
            `^convoy: push artifact: ${plain.host.replaceAll('.', '\\.')} answered in plain HTTP\\? add --insecure`,
          ),
        ],
        [
          'no tag',
          [`oci://${plain.host}/cli/app`, '--insecure'],
          /^convoy: push artifact: "oci:\/\/.*\/cli\/app" names no tag; usage: convoy push artifact DIR oci:\/\/HOST\/REPO:TAG/,
        ],
      ];
      for (const [what, args, message] of bad) {
        const got = await runConvoy(['push', 'artifact', dir, ...args], { env });
        assert.equal(got.code, 2, `${what}: ${got.stderr}`);
        assert.match(got.stderr, message, what);
        assert.doesNotMatch(got.stderr, /SSL routines|ssl3_get_record|tls_validate/, what);
      }
      await rm(ca, { force: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the Bearer token flow: 401 challenge, token from the realm with the credentials, token reused', async () => {
    const r = await startRegistry({ tls: true, auth: { username: 'ci', password: 'tok-pw', mode: 'token' } });
    try {
      const repo = parseOciUrl(`oci://${r.host}/tok/app`);
      const basic = { type: 'basic' as const, username: 'ci', password: 'tok-pw' };
      const pushed = await pushArtifact(files('t'), repo, '1.0.0', {
        credentials: basic,
        caPem: r.caPem ?? '',
        insecure: false,
      });
      const afterPush = r.tokensIssued?.() ?? 0;
      assert.ok(afterPush >= 1, 'the push fetched a token');
      const data = { '.dockerconfigjson': r.dockerConfigJson(), 'ca.crt': r.caPem ?? '' };
      const out = await new OciSource().fetch({ url: repo.display, ref: { semver: '1.x' } }, data);
      assert.equal(out.revision, pushed.digest);
      assert.equal(
        r.tokensIssued?.(),
        afterPush + 1,
        'one token served the tag list, the manifest and the blob',
      );
      await assert.rejects(
        new OciSource().fetch({ url: repo.display }, { 'ca.crt': r.caPem ?? '' }),
        /spec\.source\.oci\.secretRef: 127\.0\.0\.1:\d+ needs credentials for oci:\/\/127\.0\.0\.1:\d+\/tok\/app \(401 from its token service\)/,
      );
      const wrong = { '.dockerconfigjson': r.dockerConfigJson('ci', 'bad'), 'ca.crt': r.caPem ?? '' };
      await assert.rejects(
        new OciSource().fetch({ url: repo.display }, wrong),
        /refused the credentials for .* \(401 from its token service\)/,
      );
    } finally {
      await r.stop();
    }
  });

  it('an artifact read once by digest is served from memory; one over the cache bound is not kept', async () => {
    const { r, repo, pushed } = await ownRegistryWith('cache/app', 'v1', 'c');
    const spec = { url: repo.display, ref: { digest: pushed.digest }, insecure: true };
    const kept = new OciSource();
    const small = new OciSource({ cacheBytes: 8 });
    await kept.fetch(spec, undefined);
    await small.fetch(spec, undefined);
    await r.stop();
    const again = await kept.fetch(spec, undefined);
    assert.equal(again.revision, pushed.digest, 'no request needed: the registry is gone');
    await assert.rejects(small.fetch(spec, undefined), /cannot reach 127\.0\.0\.1:\d+/);
  });

  it('a tag is asked once per poll window by every Release on it; a requested sync asks again', async () => {
    const { r, repo, pushed } = await ownRegistryWith('shared/app', 'stable', 's');
    const spec = { url: repo.display, ref: { tag: 'stable' }, insecure: true };
    const source = new OciSource();
    const window = { pollWindowMs: 600_000 };
    const first = await source.fetch(spec, undefined, undefined, window);
    await r.stop();
    const other = await source.fetch(spec, undefined, undefined, window);
    assert.equal(other.revision, first.revision, "another Release's poll in the window: no request at all");
    assert.ok(first.revision.includes(pushed.digest));
    await assert.rejects(
      source.fetch(spec, undefined, undefined, { readAfter: performance.now() }),
      /cannot reach 127\.0\.0\.1:\d+/,
      'a requested sync must ask the registry',
    );
    await assert.rejects(
      source.fetch(spec, undefined, undefined, {}),
      /cannot reach/,
      'no window: every poll asks',
    );
  });

  it('stop() leaves no process and no directory', async () => {
    const r = await startRegistry({});
    assert.ok(isAlive(r.pid));
    await r.stop();
    assert.equal(isAlive(r.pid), false);
    assert.equal(existsSync(r.dir), false);
    await r.stop();
    assert.ok(!(await readdir(tmpdir())).includes(r.dir.split('/').pop() ?? ''));
  });
});
