// Docs are executed: every fenced block of README.md and docs/**/*.md runs against a real control plane
// with convoy's CRDs installed, so a doc cannot drift from the code. sh blocks run in bash (kubectl of
// the same version and `convoy` on PATH, KUBECONFIG set, cwd the repository); yaml blocks are applied
// with `kubectl apply --server-side --dry-run=server` (the CRD schemas and their CEL rules judge them);
// json blocks parse; ts blocks compile and import only names that exist. A block that cannot run here
// says why on the line before it (test/support/doc-blocks.ts lists the directives); the skips are counted.
// Blocks marked `api` need convoy's API behind the aggregation layer: a second control plane runs them,
// with the controller-manager serving the in-cluster web UI (--api-ui) and a Release shop/web.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { ensureBinaries } from '../../src/testenv/build.ts';
import { ensureTools } from '../../src/testenv/tools.ts';
import { startAggregatedManager } from '../support/aggregated.ts';
import { type CrdCluster, startCrdCluster } from '../support/cluster.ts';
import { blockName, type DocBlock, extractAll, HOW_TO_MARK, LANGS } from '../support/doc-blocks.ts';
import { configMap, inlineRelease } from '../support/hooks.ts';
import type { ManagerProcess } from '../support/processes.ts';
import { runCommand } from '../support/run-command.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { blocks, problems } = await extractAll(ROOT);
const BLOCK_TIMEOUT_MS = 120_000;

/** The apiVersion a fragment of this kind is wrapped in. */
const FRAGMENT_API: Readonly<Record<string, string>> = {
  Release: 'convoy.kumodo.io/v1alpha1',
  HealthRuleSet: 'convoy.kumodo.io/v1alpha1',
  Cluster: 'convoy.kumodo.io/v1alpha1',
  Role: 'rbac.authorization.k8s.io/v1',
  ClusterRole: 'rbac.authorization.k8s.io/v1',
};
const FRAGMENT_NAMESPACE = 'doc-test';
/** The source a Release fragment without one is given. */
const FILLER_MANIFESTS = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: doc-test}\n';

function failure(b: DocBlock, what: string): string {
  return `${blockName(b)} ${what}\n\nFix the doc (or the code, when the doc is right).\n${HOW_TO_MARK}`;
}

/** What a block's shell gets: the built kubectl and tools and `convoy` on PATH, this cluster's KUBECONFIG. */
async function blockEnv(kubeconfigPath: string, home: string): Promise<NodeJS.ProcessEnv> {
  const bin = await ensureBinaries();
  // helm and kustomize for `convoy render` of a chart or an overlay (docs/helm.md, docs/kustomize.md).
  const tools = await ensureTools();
  return {
    PATH: [bin, tools, join(ROOT, 'bin'), join(ROOT, 'node_modules', '.bin'), process.env.PATH ?? ''].join(
      delimiter,
    ),
    KUBECONFIG: kubeconfigPath,
    HOME: home,
    LANG: 'C.UTF-8',
  };
}

function run(cmd: string, args: readonly string[], opts: { env: NodeJS.ProcessEnv; input?: string }) {
  return runCommand(cmd, args, { ...opts, cwd: ROOT, timeoutMs: BLOCK_TIMEOUT_MS });
}

/** The block's YAML documents as objects to apply; a fragment is completed into a whole object. */
function objectsOf(b: DocBlock): Record<string, unknown>[] {
  const docs = parseAllDocuments(b.text, { version: '1.1' });
  const out: Record<string, unknown>[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new Error(failure(b, `is not valid YAML: ${doc.errors[0]?.message}`));
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value))
      throw new Error(
        failure(b, 'is not a YAML mapping: mark it as a fragment or give it apiVersion and kind'),
      );
    const obj = value as Record<string, unknown>;
    if (b.directive.kind === 'fragment') {
      const kind = b.directive.of;
      const apiVersion = FRAGMENT_API[kind];
      if (apiVersion === undefined)
        throw new Error(failure(b, `is a fragment of ${kind}, which the doc test cannot complete yet`));
      const name = `${b.file.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}-${b.line}`;
      const whole: Record<string, unknown> = {
        apiVersion,
        kind,
        metadata: { name, ...(kind.startsWith('Cluster') ? {} : { namespace: FRAGMENT_NAMESPACE }) },
        ...obj,
      };
      const spec = whole.spec as Record<string, unknown> | undefined;
      if (kind === 'Release' && spec !== undefined && spec.source === undefined)
        whole.spec = { source: { inline: { manifests: FILLER_MANIFESTS } }, ...spec };
      out.push(whole);
    } else if (typeof obj.apiVersion === 'string' && typeof obj.kind === 'string') {
      out.push(obj);
    } else {
      throw new Error(
        failure(
          b,
          'has a document without apiVersion and kind: mark it `<!-- doc-test: fragment kind=… -->`',
        ),
      );
    }
  }
  return out;
}

describe('docs: every block of README.md and docs/ runs', () => {
  let cluster: CrdCluster | undefined;
  let env: NodeJS.ProcessEnv = {};
  let home = '';
  let kubectl = '';

  before(async () => {
    kubectl = join(await ensureBinaries(), 'kubectl');
    cluster = await startCrdCluster({ namespaces: [FRAGMENT_NAMESPACE] });
    home = await mkdtemp(join(tmpdir(), 'convoy-docs-home-'));
    env = await blockEnv(cluster.cp.kubeconfigPath, home);
  });
  after(async () => {
    await cluster?.stop();
    if (home !== '') await rm(home, { recursive: true, force: true });
  });

  test('every block has a language and every doc-test comment parses', () => {
    const bad = [
      ...problems,
      ...blocks
        .filter((b) => !(LANGS as readonly string[]).includes(b.lang))
        .map((b) => `${blockName(b)}: language "${b.lang}" is not one of ${LANGS.join(', ')}`),
    ];
    assert.deepEqual(bad, [], `${bad.join('\n')}\n\n${HOW_TO_MARK}`);
    assert.ok(blocks.length > 0, 'no blocks found: is the extractor broken?');
  });

  test('skips are few, and each says why', (t) => {
    const skipped = blocks.filter((b) => b.directive.kind === 'skip');
    for (const b of skipped)
      if (b.directive.kind === 'skip') t.diagnostic(`skip ${blockName(b)}: ${b.directive.reason}`);
    const dev = blocks.filter((b) => b.directive.kind === 'dev').length;
    const api = blocks.filter((b) => b.directive.kind === 'api').length;
    const text = blocks.filter((b) => b.lang === 'text').length;
    t.diagnostic(
      `${blocks.length} blocks: ${skipped.length} skipped, ${text} text (output), ${dev} run under convoy dev by test/e2e/dev.test.ts, ${api} with convoy's API registered`,
    );
    assert.ok(
      skipped.length * 5 <= blocks.length,
      `more than one block in five is skipped (${skipped.length} of ${blocks.length})`,
    );
  });

  test('sources.md on inline size: plain kubectl apply fails past 256 KiB of annotations, --server-side takes 1 MiB', async () => {
    const release = (name: string, chars: number) => {
      const head = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  blob: `;
      const manifests = `${head}${'x'.repeat(chars - head.length - 1)}\n`;
      assert.equal(manifests.length, chars);
      return JSON.stringify({
        apiVersion: 'convoy.kumodo.io/v1alpha1',
        kind: 'Release',
        metadata: { name, namespace: FRAGMENT_NAMESPACE },
        spec: { source: { inline: { manifests } } },
      });
    };
    const apply = (args: readonly string[], input: string) =>
      run(kubectl, ['apply', '--field-manager=doc-test', ...args, '-f', '-'], { env, input });
    const plain = await apply(['--dry-run=server'], release('big-plain', 300 * 1024));
    assert.notEqual(plain.code, 0, plain.out);
    assert.match(plain.out, /metadata.annotations: Too long: may not be more than 262144 bytes/, plain.out);
    const ssa = await apply(['--server-side'], release('big-ssa', 1024 * 1024));
    assert.equal(ssa.code, 0, ssa.out);
    const over = await apply(['--server-side', '--dry-run=server'], release('big-over', 1024 * 1024 + 1));
    assert.notEqual(over.code, 0, over.out);
    assert.match(over.out, /spec.source.inline.manifests: Too long/, over.out);
  });

  for (const b of blocks) {
    const d = b.directive;
    if (d.kind === 'skip' || d.kind === 'dev' || d.kind === 'api' || b.lang === 'text') continue;
    switch (b.lang) {
      case 'yaml':
        test(`yaml ${b.file}:${b.line} is accepted by the API server`, async () => {
          const objects = objectsOf(b);
          assert.ok(objects.length > 0, failure(b, 'holds no object'));
          const client = cluster?.client;
          assert.ok(client !== undefined);
          // The namespaces they name exist, with the default ServiceAccount kube-controller-manager
          // would make, as on a cluster they are meant for.
          for (const ns of new Set(objects.map((o) => (o.metadata as { namespace?: string })?.namespace))) {
            const name = ns ?? 'default';
            if ((await client.get({ apiVersion: 'v1', kind: 'Namespace', name })) === undefined)
              await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
            const sa = { apiVersion: 'v1', kind: 'ServiceAccount', namespace: name, name: 'default' };
            if ((await client.get(sa)) === undefined)
              await client.create({
                apiVersion: 'v1',
                kind: 'ServiceAccount',
                metadata: { name: 'default', namespace: name },
              });
          }
          const input = objects.map((o) => JSON.stringify(o)).join('\n');
          const r = await run(
            kubectl,
            ['apply', '--server-side', '--dry-run=server', '--field-manager=doc-test', '-f', '-'],
            {
              env,
              input,
            },
          );
          assert.equal(
            r.code,
            0,
            failure(b, `was refused by kubectl apply --server-side --dry-run=server:\n${r.out}`),
          );
        });
        break;
      case 'json':
        test(`json ${b.file}:${b.line} parses`, () => {
          assert.doesNotThrow(() => JSON.parse(b.text), failure(b, 'is not valid JSON'));
        });
        break;
      case 'ts':
        test(`ts ${b.file}:${b.line} compiles and imports names that exist`, async () => {
          const out = ts.transpileModule(b.text, {
            reportDiagnostics: true,
            compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ESNext },
          });
          const errors = (out.diagnostics ?? []).map((d) =>
            ts.flattenDiagnosticMessageText(d.messageText, '\n'),
          );
          assert.deepEqual(errors, [], failure(b, `does not compile: ${errors.join('; ')}`));
          for (const m of b.text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'(\.[^']+)'/g)) {
            const mod = (await import(join(ROOT, m[2] ?? ''))) as Record<string, unknown>;
            for (const name of (m[1] ?? '').split(',').map((s) => s.trim().replace(/^type\s+/, ''))) {
              if (name !== '')
                assert.ok(name in mod, failure(b, `imports ${name}, which ${m[2]} does not export`));
            }
          }
        });
        break;
      case 'sh':
        test(`sh ${b.file}:${b.line} runs`, async () => {
          const r = await run('bash', ['-euo', 'pipefail', '-c', b.text], { env });
          assert.equal(r.code, 0, failure(b, `exited ${r.code}:\n${r.out}`));
        });
        break;
      default:
        break;
    }
  }
});

describe("docs: the blocks that need convoy's API registered (doc-test: api) run", () => {
  const apiBlocks = blocks.filter((b) => b.directive.kind === 'api');
  let cluster: CrdCluster | undefined;
  let manager: ManagerProcess | undefined;
  let env: NodeJS.ProcessEnv = {};
  let home = '';

  before(async () => {
    // As docs/ui.md#in-a-cluster sets it up: the aggregation layer, the controller-manager with --api-ui
    // registered as the APIService, and something to show in namespace shop.
    cluster = await startCrdCluster({
      aggregation: true,
      namespaces: ['convoy-system', 'shop'],
      scratch: 'convoy-docs-api-',
    });
    manager = await startAggregatedManager(cluster, 'docs-api', ['--api-ui']);
    await cluster.client.create(inlineRelease('shop', 'web', [configMap('web')], {}));
    home = await mkdtemp(join(tmpdir(), 'convoy-docs-api-home-'));
    env = await blockEnv(cluster.cp.kubeconfigPath, home);
  });
  after(async () => {
    await manager?.stop();
    await cluster?.stop();
    if (home !== '') await rm(home, { recursive: true, force: true });
  });

  test('there are such blocks (docs/ui.md reaches the UI through kubectl proxy)', () => {
    assert.ok(
      apiBlocks.some((b) => b.file === 'docs/ui.md'),
      apiBlocks.map((b) => blockName(b)).join(', '),
    );
  });

  for (const b of apiBlocks) {
    test(`sh ${b.file}:${b.line} runs with convoy's API registered`, async () => {
      assert.equal(b.lang, 'sh', failure(b, 'is marked api but is not an sh block'));
      const r = await run('bash', ['-euo', 'pipefail', '-c', b.text], { env });
      assert.equal(r.code, 0, failure(b, `exited ${r.code}:\n${r.out}`));
    });
  }
});
