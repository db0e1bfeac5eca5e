// npm run bench:render — renders per second of a 30-object Helm chart and a 30-object Kustomize
// overlay through the renderers the controller uses (renderSource: the tool, then checking, canonical
// order and renderRef), with the real helm and kustomize built from their Go modules. Cold: each
// render runs the tool (a fresh cache every time); warm: the same inputs again, a cache hit that runs
// no process (counted, and checked to be none). Also the renderRef of cold and warm agree.
// `npm run bench:render -- --large` measures one ~50 MB Helm render instead (render-large.ts).
import { join } from 'node:path';
import { RenderCache } from '../src/render/cache.ts';
import { HelmRenderer } from '../src/render/helm/renderer.ts';
import { KustomizeRenderer } from '../src/render/kustomize/renderer.ts';
import { renderSource } from '../src/render/release.ts';
import type { Renderer } from '../src/render/renderer.ts';
import { runTool, type ToolRunner } from '../src/render/tools/run.ts';
import type { RenderSpec, SourceFile } from '../src/render/types.ts';
import { ensureTools } from '../src/testenv/tools.ts';
import { measureLarge } from './render-large.ts';

const OBJECTS = 30;
const COLD = Number(process.env.BENCH_COLD ?? 10);
const WARM = Number(process.env.BENCH_WARM ?? 2000);

const enc = (s: string) => new TextEncoder().encode(s);
const files = (m: Record<string, string>): SourceFile[] =>
  Object.entries(m).map(([path, text]) => ({ path, data: enc(text) }));

/** 10 ConfigMaps, 10 Services and 10 Deployments from three range templates. */
function chart(): SourceFile[] {
  const range = (kind: string, body: string) => `{{- range $i := until (int .Values.count) }}
---
${kind}
metadata:
  name: {{ $.Release.Name }}-{{ $i }}
${body}
{{- end }}
`;
  return files({
    'Chart.yaml': 'apiVersion: v2\nname: bench\nversion: 1.0.0\n',
    'values.yaml': `count: ${OBJECTS / 3}\ncolor: blue\n`,
    'templates/cm.yaml': range(
      'apiVersion: v1\nkind: ConfigMap',
      'data: {color: {{ $.Values.color | quote }}}',
    ),
    'templates/svc.yaml': range(
      'apiVersion: v1\nkind: Service',
      'spec: {selector: {app: web-{{ $i }}}, ports: [{port: 80}]}',
    ),
    'templates/deploy.yaml': range(
      'apiVersion: apps/v1\nkind: Deployment',
      `spec:
  selector: {matchLabels: {app: web-{{ $i }}}}
  template:
    metadata: {labels: {app: web-{{ $i }}}}
    spec: {containers: [{name: main, image: "registry.invalid/app:1"}]}`,
    ),
  });
}

/** A base of 29 objects, an overlay with a patch, a label and a generated ConfigMap: 30. */
function overlay(): SourceFile[] {
  const m: Record<string, string> = {};
  const names: string[] = [];
  for (let i = 0; i < OBJECTS - 1; i++) {
    const kind = i % 3 === 0 ? 'ConfigMap' : i % 3 === 1 ? 'Service' : 'Deployment';
    const body =
      kind === 'ConfigMap'
        ? 'apiVersion: v1\nkind: ConfigMap\ndata: {color: blue}'
        : kind === 'Service'
          ? `apiVersion: v1\nkind: Service\nspec: {selector: {app: web-${i}}, ports: [{port: 80}]}`
          : `apiVersion: apps/v1\nkind: Deployment\nspec:\n  selector: {matchLabels: {app: web-${i}}}\n  template:\n    metadata: {labels: {app: web-${i}}}\n    spec: {containers: [{name: main, image: "registry.invalid/app:1"}]}`;
    m[`base/o${i}.yaml`] = `${body}\nmetadata: {name: o${i}}\n`;
    names.push(`o${i}.yaml`);
  }
  m['base/kustomization.yaml'] = `resources: [${names.join(', ')}]\n`;
  m['kustomization.yaml'] = `resources: [base]
labels: [{pairs: {team: web}}]
configMapGenerator: [{name: gen, literals: [k=v]}]
patches:
- target: {kind: Deployment}
  patch: |
    - {op: add, path: /spec/replicas, value: 2}
`;
  return files(m);
}

type Case = {
  readonly name: string;
  readonly spec: RenderSpec;
  readonly files: SourceFile[];
  readonly make: (runner: ToolRunner, cache: RenderCache) => Renderer;
};

async function measure(c: Case): Promise<void> {
  let runs = 0;
  const runner: ToolRunner = (o) => {
    runs++;
    return runTool(o);
  };
  const once = async (renderer: Renderer) => {
    const out = await renderSource(
      { render: c.spec },
      { revision: 'bench', files: c.files },
      { renderers: { [renderer.type]: renderer }, namespace: 'bench', name: 'bench' },
    );
    if (!out.ok) throw new Error(`${c.name}: ${out.error.message}`);
    if (out.render.objects.length !== OBJECTS)
      throw new Error(`${c.name}: ${out.render.objects.length} objects, not ${OBJECTS}`);
    return out.renderRef;
  };
  // Cold: a new cache each time, so every render runs the tool.
  let ref = '';
  const coldStart = performance.now();
  for (let i = 0; i < COLD; i++) ref = await once(c.make(runner, new RenderCache()));
  const coldMs = performance.now() - coldStart;
  const coldRuns = runs;
  // Warm: one renderer; its first render fills the cache, the rest hit it.
  const warm = c.make(runner, new RenderCache());
  await once(warm);
  runs = 0;
  const warmStart = performance.now();
  for (let i = 0; i < WARM; i++) {
    if ((await once(warm)) !== ref) throw new Error(`${c.name}: a warm render has another renderRef`);
  }
  const warmMs = performance.now() - warmStart;
  if (runs !== 0) throw new Error(`${c.name}: ${runs} tool runs on cache hits`);
  const rate = (n: number, ms: number) => (n / (ms / 1000)).toFixed(1);
  process.stdout.write(
    `${c.name} (${OBJECTS} objects): cold ${rate(COLD, coldMs)} renders/s (${(coldMs / COLD).toFixed(0)} ms each, ${coldRuns} tool runs for ${COLD}); ` +
      `warm ${rate(WARM, warmMs)} renders/s (${((warmMs / WARM) * 1000).toFixed(0)} µs each, 0 tool runs for ${WARM})\n`,
  );
}

if (process.argv.includes('--large')) {
  await measureLarge();
  process.exit(0);
}
const tools = await ensureTools();
const helm = join(tools, 'helm');
const kustomize = join(tools, 'kustomize');
await measure({
  name: 'helm chart',
  spec: { type: 'Helm' },
  files: chart(),
  make: (runner, cache) => new HelmRenderer({ binary: helm, kustomizeBinary: kustomize, runner, cache }),
});
await measure({
  name: 'kustomize overlay',
  spec: { type: 'Kustomize' },
  files: overlay(),
  make: (runner, cache) => new KustomizeRenderer({ binary: kustomize, runner, cache }),
});
