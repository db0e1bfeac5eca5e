// The Kustomize and Helm renderers over the real tools (built from their Go modules), without a
// cluster: what each feature renders to, that the limits hold (files outside the source, plugins,
// remote bases), that errors name the file and line, that an unchanged input runs no tool, and that
// a missing binary says how to get one.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { HelmRenderer } from '../../src/render/helm/renderer.ts';
import { KustomizeRenderer } from '../../src/render/kustomize/renderer.ts';
import { renderSource } from '../../src/render/release.ts';
import { runTool, type ToolRunner } from '../../src/render/tools/run.ts';
import type { Obj, RenderInputs, RenderSpec, SourceFile } from '../../src/render/types.ts';
import { ensureTools } from '../../src/testenv/tools.ts';
import { HELM_MIGRATE_HOOK, HELM_TEST_POD } from '../support/helm-chart.ts';

let tools = '';
before(async () => {
  tools = await ensureTools();
});

const enc = (s: string) => new TextEncoder().encode(s);
const filesOf = (files: Record<string, string>): SourceFile[] =>
  Object.entries(files).map(([path, text]) => ({ path, data: enc(text) }));

/** The real runner, counting its runs. */
function counting(): { runner: ToolRunner; runs: () => number } {
  let n = 0;
  return {
    runner: (run) => {
      n++;
      return runTool(run);
    },
    runs: () => n,
  };
}

async function render(
  render: RenderSpec,
  files: Record<string, string>,
  opts: { renderer?: KustomizeRenderer | HelmRenderer; inputs?: RenderInputs } = {},
) {
  const renderer =
    opts.renderer ??
    (render.type === 'Helm'
      ? new HelmRenderer({ binary: join(tools, 'helm'), kustomizeBinary: join(tools, 'kustomize') })
      : new KustomizeRenderer({ binary: join(tools, 'kustomize') }));
  return renderSource(
    { render },
    { revision: 'r1', files: filesOf(files) },
    {
      renderers: { [renderer.type]: renderer },
      namespace: 'team',
      name: 'app',
      ...(opts.inputs === undefined ? {} : { inputs: opts.inputs }),
    },
  );
}

const named = (objs: readonly Obj[]) => objs.map((o) => `${o.kind}/${o.metadata.name}`);
const errorOf = (r: Awaited<ReturnType<typeof render>>) => (r.ok ? '' : r.error.message);

const CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\ndata: {a: "1"}\n';

describe('Kustomize over the real kustomize', () => {
  test('components, patches, replacements and generators with hashed names', async () => {
    const r = await render(
      { type: 'Kustomize' },
      {
        'kustomization.yaml': `resources: [base]
components: [comp]
namePrefix: p-
configMapGenerator: [{name: gen, literals: [k=v]}]
secretGenerator: [{name: sec, literals: [password=x]}]
patches:
- target: {kind: ConfigMap, name: plain}
  patch: |
    - {op: add, path: /data/patched, value: "yes"}
replacements:
- source: {kind: ConfigMap, name: gen, fieldPath: data.k}
  targets: [{select: {kind: ConfigMap, name: plain}, fieldPaths: [data.copied], options: {create: true}}]
`,
        'base/kustomization.yaml': 'resources: [cm.yaml]\n',
        'base/cm.yaml': CM,
        'comp/kustomization.yaml':
          'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonAnnotations: {from: component}\n',
      },
    );
    assert.ok(r.ok, errorOf(r));
    const names = named(r.render.objects);
    assert.equal(names.length, 3);
    assert.ok(names.includes('ConfigMap/p-plain'));
    assert.ok(
      names.some((n) => /^ConfigMap\/p-gen-[a-z0-9]{10}$/.test(n)),
      names.join(),
    );
    assert.ok(
      names.some((n) => /^Secret\/p-sec-[a-z0-9]{10}$/.test(n)),
      names.join(),
    );
    const plain = r.render.objects.find((o) => o.metadata.name === 'p-plain');
    assert.deepEqual(plain?.data, { a: '1', patched: 'yes', copied: 'v' });
    assert.equal(plain?.metadata.annotations?.from, 'component');
  });

  test('a file outside the source is refused (load restrictor), and the work directory is not shown', async () => {
    const r = await render(
      { type: 'Kustomize' },
      { 'kustomization.yaml': 'resources: [../../etc/passwd]\n' },
    );
    assert.equal(r.ok, false);
    assert.match(errorOf(r), /^kustomize build: /);
    assert.doesNotMatch(errorOf(r), /convoy-kustomize-/);
  });

  test('exec and container plugins are refused', async () => {
    const r = await render(
      { type: 'Kustomize' },
      {
        'kustomization.yaml': 'resources: [cm.yaml]\ntransformers: [plugin.yaml]\n',
        'cm.yaml': CM,
        'plugin.yaml': `apiVersion: example.com/v1
kind: Runner
metadata:
  name: run
  annotations:
    config.kubernetes.io/function: |
      exec: {path: /bin/sh}
`,
      },
    );
    assert.equal(r.ok, false);
    assert.match(errorOf(r), /kustomize build: .*(plugin|function|not enabled|alpha)/i);
  });

  test('a kustomization error names the file; no kustomization is said so', async () => {
    const bad = await render({ type: 'Kustomize' }, { 'kustomization.yaml': 'resources: [missing.yaml]\n' });
    assert.match(errorOf(bad), /missing\.yaml/);
    const none = await render({ type: 'Kustomize' }, { 'cm.yaml': CM });
    assert.match(errorOf(none), /no kustomization\.yaml .* at the source path/);
  });

  test('the same input runs kustomize once; a changed file runs it again', async () => {
    const c = counting();
    const renderer = new KustomizeRenderer({ binary: join(tools, 'kustomize'), runner: c.runner });
    const files = { 'kustomization.yaml': 'resources: [cm.yaml]\n', 'cm.yaml': CM };
    const a = await render({ type: 'Kustomize' }, files, { renderer });
    const b = await render({ type: 'Kustomize' }, files, { renderer });
    assert.ok(a.ok && b.ok);
    assert.equal(a.renderRef, b.renderRef);
    assert.equal(c.runs(), 1);
    await render({ type: 'Kustomize' }, { ...files, 'cm.yaml': CM.replace('"1"', '"2"') }, { renderer });
    assert.equal(c.runs(), 2);
  });

  test('a missing binary says how to get one', async () => {
    const renderer = new KustomizeRenderer({ binary: '/nonexistent/kustomize' });
    const r = await render({ type: 'Kustomize' }, { 'kustomization.yaml': 'resources: []\n' }, { renderer });
    assert.match(
      errorOf(r),
      /the kustomize binary was not found \(\/nonexistent\/kustomize\): .*npm run testenv:build/,
    );
  });
});

const CHART = {
  'Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.2.3\n',
  'values.yaml': 'replicas: 1\ncolor: blue\n',
  'values-prod.yaml': 'color: red\n',
  'crds/widgets.yaml': `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`,
  'templates/cm.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-cfg
  namespace: {{ .Release.Namespace }}
  annotations: {convoy.kumodo.io/sync-wave: "-2"}
data:
  color: {{ .Values.color | quote }}
  replicas: {{ .Values.replicas | quote }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  hasWidgets: {{ .Capabilities.APIVersions.Has "example.com/v1" | quote }}
`,
  'templates/hook.yaml': HELM_MIGRATE_HOOK,
  'templates/tests/test.yaml': HELM_TEST_POD,
};

describe('Helm over the real helm', () => {
  test('release name, namespace, values in order, capabilities, crds first, hooks mapped, tests left out', async () => {
    const r = await render(
      { type: 'Helm', helm: { valuesFiles: ['values-prod.yaml'], values: { replicas: 3 } } },
      CHART,
      {
        inputs: {
          capabilities: { kubeVersion: 'v1.36.3', apiVersions: ['v1', 'example.com/v1'] },
          valuesFrom: [{ color: 'green', replicas: 2 }],
        },
      },
    );
    assert.ok(r.ok, errorOf(r));
    assert.deepEqual(named(r.render.objects), [
      'CustomResourceDefinition/widgets.example.com',
      'ConfigMap/app-cfg',
    ]);
    const crd = r.render.objects[0];
    assert.equal(
      crd?.metadata.annotations?.['convoy.kumodo.io/sync-wave'],
      '-2',
      'crds/ go in the lowest wave',
    );
    const cm = r.render.objects[1];
    assert.equal(cm?.metadata.namespace, 'team');
    // valuesFiles < valuesFrom < values
    assert.deepEqual(cm?.data, { color: 'green', replicas: '3', kube: 'v1.36.3', hasWidgets: 'true' });
    assert.deepEqual(named(r.render.hooks), ['Job/migrate']);
    assert.equal(r.render.hooks[0]?.metadata.annotations?.['convoy.kumodo.io/hook'], 'PreSync');
    assert.equal(
      r.render.hooks[0]?.metadata.annotations?.['convoy.kumodo.io/hook-delete-policy'],
      'BeforeHookCreation',
    );
  });

  test('post-renderers patch the output with kustomize', async () => {
    const r = await render(
      {
        type: 'Helm',
        helm: {
          releaseName: 'web',
          postRenderers: [
            {
              kustomize: {
                patches: [
                  {
                    target: { kind: 'ConfigMap' },
                    patch: '- {op: add, path: /metadata/labels, value: {patched: "true"}}',
                  },
                ],
              },
            },
          ],
        },
      },
      CHART,
    );
    assert.ok(r.ok, errorOf(r));
    assert.equal(r.render.objects.find((o) => o.kind === 'ConfigMap')?.metadata.labels?.patched, 'true');
    assert.equal(r.render.objects.find((o) => o.kind === 'ConfigMap')?.metadata.name, 'web-cfg');
  });

  test('a template error names the template file and line', async () => {
    const r = await render(
      { type: 'Helm' },
      {
        ...CHART,
        'templates/broken.yaml':
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.missing.deeper }}\n',
      },
    );
    assert.equal(r.ok, false);
    assert.match(errorOf(r), /helm template: .*web\/templates\/broken\.yaml:4/);
  });

  test('a chart that renders invalid YAML names its template', async () => {
    const r = await render(
      { type: 'Helm' },
      { ...CHART, 'templates/bad.yaml': 'kind: ConfigMap\nmetadata: [\n' },
    );
    assert.equal(r.ok, false);
    assert.match(errorOf(r), /web\/templates\/bad\.yaml/);
  });

  test('a valuesFile not in the chart and a source that is not a chart are named', async () => {
    const r = await render({ type: 'Helm', helm: { valuesFiles: ['nope.yaml'] } }, CHART);
    assert.match(
      errorOf(r),
      /spec\.render\.helm\.valuesFiles\[0\]: nope\.yaml is not in the chart directory/,
    );
    const notChart = await render({ type: 'Helm' }, { 'cm.yaml': CM });
    assert.match(errorOf(notChart), /no Chart\.yaml at the source path/);
  });

  test('the same chart and inputs run helm once; a changed valuesFrom runs it again', async () => {
    const c = counting();
    const renderer = new HelmRenderer({ binary: join(tools, 'helm'), runner: c.runner });
    const a = await render({ type: 'Helm' }, CHART, { renderer, inputs: { valuesFrom: [{ color: 'a' }] } });
    const b = await render({ type: 'Helm' }, CHART, { renderer, inputs: { valuesFrom: [{ color: 'a' }] } });
    assert.ok(a.ok && b.ok);
    assert.equal(a.renderRef, b.renderRef);
    assert.equal(c.runs(), 1);
    const changed = await render({ type: 'Helm' }, CHART, {
      renderer,
      inputs: { valuesFrom: [{ color: 'b' }] },
    });
    assert.equal(c.runs(), 2);
    assert.ok(changed.ok);
    assert.notEqual(changed.renderRef, a.renderRef);
  });
});
