// renderRelease end to end over in-memory sources: renderRef stability, errors, inline source.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${NAME} in plain strings is the input under test
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { INLINE_FILE, InlineSource, inlineRevision } from './inline.ts';
import { renderRelease, renderSource } from './release.ts';
import type { Renderer, RendererOptions } from './renderer.ts';
import { ok } from './result.ts';
import type { SourceFile, SourceOutput } from './types.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const source = (files: Record<string, string>, revision = 'rev1'): SourceOutput => ({
  revision,
  files: Object.entries(files).map(([path, text]): SourceFile => ({ path, data: enc(text) })),
});

const objects: Record<string, unknown>[] = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'web' } },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      labels: { app: 'web', tier: 'front' },
      annotations: { 'convoy.kumodo.io/sync-wave': '1' },
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'nginx:1', ports: [{ containerPort: 80 }] }] },
      },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cfg' },
    data: { b: '2', a: '1', '10': 'x', '9': 'y' },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web' },
    spec: { ports: [{ port: 80 }], selector: { app: 'web' } },
  },
  {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: 'migrate',
      annotations: { 'convoy.kumodo.io/hook': 'PreSync', 'convoy.kumodo.io/hook-timeout': '5m' },
    },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'm', image: 'busybox' }] } } },
  },
];

/** YAML 1.1 out, because the renderer reads YAML 1.1: a 1.2 writer leaves `y` unquoted, which 1.1 reads as true. */
function yamlOf(objs: readonly unknown[]): string {
  return objs.map((o) => stringify(o, { version: '1.1' })).join('---\n');
}

/** The same value with the keys of every object in a permuted order. */
function permuteKeys(v: unknown, rand: () => number): unknown {
  if (Array.isArray(v)) return v.map((x) => permuteKeys(x, rand));
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [entries[i], entries[j]] = [entries[j] as [string, unknown], entries[i] as [string, unknown]];
    }
    return Object.fromEntries(entries.map(([k, x]) => [k, permuteKeys(x, rand)]));
  }
  return v;
}

const spec = { render: { targetNamespace: 'web' } };

describe('renderRelease', () => {
  it('renders, splits hooks, and returns the revision and renderRef', () => {
    const r = renderRelease(spec, source({ 'all.yaml': yamlOf(objects) }));
    assert.ok(r.ok, r.ok ? '' : r.error.message);
    assert.equal(r.revision, 'rev1');
    assert.match(r.renderRef, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(
      r.render.objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`),
      ['Namespace//web', 'ConfigMap/web/cfg', 'Service/web/web', 'Deployment/web/web'],
    );
    assert.deepEqual(
      r.render.hooks.map((o) => o.metadata.name),
      ['migrate'],
    );
  });

  it('render.targetNamespace defaults to the Release namespace; an explicit one wins', () => {
    const ns = (r: ReturnType<typeof renderRelease>) =>
      r.ok ? r.render.objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}`) : [r.error.message];
    const files = { 'all.yaml': yamlOf(objects) };
    assert.deepEqual(ns(renderRelease({}, source(files), { releaseNamespace: 'team' })), [
      'Namespace/',
      'ConfigMap/team',
      'Service/team',
      'Deployment/team',
    ]);
    assert.deepEqual(ns(renderRelease(spec, source(files), { releaseNamespace: 'team' })), [
      'Namespace/',
      'ConfigMap/web',
      'Service/web',
      'Deployment/web',
    ]);
  });

  it('gives the same renderRef whatever the file split, file order and key order', () => {
    const base = renderRelease(spec, source({ 'all.yaml': yamlOf(objects) }));
    assert.ok(base.ok);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: objects.length, maxLength: objects.length }),
        fc.integer(),
        fc.boolean(),
        (fileOf, seed, asJson) => {
          let s = seed;
          const rand = () => {
            s = (s * 1103515245 + 12345) & 0x7fffffff;
            return s / 0x80000000;
          };
          const groups: unknown[][] = [[], [], [], []];
          // a reversed walk changes the order of objects inside a file too
          for (const [i, o] of [...objects.entries()].reverse())
            groups[fileOf[i] ?? 0]?.push(permuteKeys(o, rand));
          const files: Record<string, string> = {};
          groups.forEach((g, i) => {
            if (g.length === 0) return;
            if (asJson && g.length === 1) files[`f${3 - i}.json`] = JSON.stringify(g[0], null, 1);
            else files[`dir${i}/f.yaml`] = yamlOf(g);
          });
          const r = renderRelease(spec, source(files, 'another-revision'));
          assert.ok(r.ok, r.ok ? '' : r.error.message);
          assert.equal(r.renderRef, base.renderRef);
          assert.equal(r.revision, 'another-revision');
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a change of content changes the renderRef', () => {
    const a = renderRelease(spec, source({ 'a.yaml': yamlOf(objects) }));
    const changed = structuredClone(objects);
    (changed[2] as { data: Record<string, string> }).data.a = 'changed';
    const b = renderRelease(spec, source({ 'a.yaml': yamlOf(changed) }));
    const c = renderRelease({ render: { targetNamespace: 'other' } }, source({ 'a.yaml': yamlOf(objects) }));
    assert.ok(a.ok && b.ok && c.ok);
    assert.notEqual(a.renderRef, b.renderRef);
    assert.notEqual(a.renderRef, c.renderRef);
  });

  it('fails with RenderFailed naming the file, document and line', () => {
    const r = renderRelease(
      spec,
      source({
        'apps/web.yaml': `${yamlOf(objects.slice(0, 1))}---\nkind: ConfigMap\nmetadata:\n  name: [x\n`,
      }),
    );
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.error.reason, 'RenderFailed');
    assert.match(r.error.message, /^apps\/web\.yaml document 2, line \d+ column \d+: /);
  });

  it('fails naming the object for a missing kind', () => {
    const r = renderRelease(spec, source({ 'a.yaml': 'apiVersion: v1\nmetadata:\n  name: x\n' }));
    assert.equal(r.ok, false);
    assert.equal(r.ok ? '' : r.error.message, 'a.yaml document 1: kind is missing');
  });

  it('rejects an invalid substitute variable', () => {
    const r = renderRelease(
      { render: { substitute: { 'a-b': 'x' } } },
      source({ 'a.yaml': yamlOf(objects) }),
    );
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.error.message, /^spec\.render\.substitute: variable name "a-b" is invalid/);
  });

  it('substitutes and sets targetNamespace', () => {
    const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg-${ENV}\ndata:\n  env: ${ENV}\n';
    const r = renderRelease(
      { render: { substitute: { ENV: 'prod' }, targetNamespace: 'team' } },
      source({ 'a.yaml': text }),
    );
    assert.ok(r.ok);
    assert.deepEqual(r.render.objects, [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cfg-prod', namespace: 'team' },
        data: { env: 'prod' },
      },
    ]);
  });

  it('reports render types without a renderer', async () => {
    const r = await renderSource({ render: { type: 'Helm' } }, source({ 'a.yaml': yamlOf(objects) }));
    assert.equal(r.ok, false);
    assert.equal(
      r.ok ? '' : r.error.message,
      'spec.render.type: Helm rendering is not enabled in this process',
    );
    const sync = renderRelease({ render: { type: 'Helm' } }, source({ 'a.yaml': yamlOf(objects) }));
    assert.equal(sync.ok ? '' : sync.error.message, 'spec.render.type: Helm needs renderSource');
  });

  it('uses a renderer given for a type (renderSource)', async () => {
    const fake: Renderer = {
      type: 'Kustomize',
      render: () =>
        ok([
          {
            object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'k' } },
            origin: { file: 'k', document: 1 },
          },
        ]),
    };
    const r = await renderSource({ render: { type: 'Kustomize' } }, source({}), {
      renderers: { Kustomize: fake },
    });
    assert.ok(r.ok);
    assert.equal(r.render.objects[0]?.metadata.name, 'k');
  });

  it("hands the renderer the source's access and the field of its path", async () => {
    const seen: RendererOptions[] = [];
    const recording: Renderer = {
      type: 'Helm',
      render: (_files, options) => {
        seen.push(options);
        return ok([]);
      },
    };
    const access = { credentials: { username: 'u', password: 'p' }, host: 'git.example.com' };
    await renderSource(
      {
        render: { type: 'Helm' },
        source: { git: { url: 'https://git.example.com/c.git', path: 'charts/app' } },
      },
      { ...source({}), access },
      { renderers: { Helm: recording } },
    );
    assert.deepEqual(seen[0]?.dependencyAccess, access);
    assert.deepEqual(seen[0]?.sourcePath, { field: 'spec.source.git.path', path: 'charts/app' });
  });
});

describe('InlineSource', () => {
  it('gives the manifests as one file and a revision from their hash', async () => {
    const manifests = yamlOf(objects);
    const out = await InlineSource.fetch({ manifests }, undefined);
    assert.equal(out.revision, inlineRevision(manifests));
    assert.match(out.revision, /^inline:[0-9a-f]{12}$/);
    assert.deepEqual(
      out.files.map((f) => f.path),
      [INLINE_FILE],
    );
    const r = renderRelease(spec, out);
    assert.ok(r.ok);
    assert.equal(r.render.objects.length, 4);
  });
  it('a different text is a different revision, the same text the same', async () => {
    const a = await InlineSource.fetch({ manifests: 'a: 1\n' }, undefined);
    const b = await InlineSource.fetch({ manifests: 'a: 2\n' }, undefined);
    const a2 = await InlineSource.fetch({ manifests: 'a: 1\n' }, undefined);
    assert.notEqual(a.revision, b.revision);
    assert.equal(a.revision, a2.revision);
  });
  it('names inline.yaml in errors', async () => {
    const r = renderRelease({}, await InlineSource.fetch({ manifests: 'kind: [\n' }, undefined));
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.error.message, /^inline\.yaml document 1, line/);
  });
});
