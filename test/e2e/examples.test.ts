// examples/ never rots: every example app is rendered offline as its Release renders it (renderRelease
// over the files of its manifests/ folder) and every object and hook is accepted by a real API server
// (server-side dry run, strict field validation) — also after its broken.patch and error-rate.patch, the
// changes `convoy dev` tells users to commit; and every resource under examples/resources/ passes the same dry run.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/api/types.ts';
import {
  BROKEN_PATCH,
  ERROR_RATE_PATCH,
  EXAMPLE_MANIFESTS,
  EXAMPLES_DIR,
  exampleRelease,
  git,
  initExampleRepo,
} from '../../src/cli/dev-example.ts';
import { renderRelease } from '../../src/render/index.ts';
import type { Obj, SourceFile } from '../../src/render/types.ts';
import { useCrdCluster } from '../support/cluster.ts';

async function filesUnder(dir: string, root = dir): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p, root)));
    else out.push({ path: relative(root, p), data: await readFile(p) });
  }
  return out;
}

/** The example apps: folders of examples/ with a manifests/ folder. */
async function apps(): Promise<string[]> {
  const entries = await readdir(EXAMPLES_DIR, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory() && existsSync(join(EXAMPLES_DIR, e.name, EXAMPLE_MANIFESTS)))
    .map((e) => e.name)
    .sort();
}

describe('examples/', () => {
  const cluster = useCrdCluster({ scratch: 'convoy-examples-' });
  const { client } = cluster;

  async function dryRun(obj: Obj | KubeObject, what: string): Promise<void> {
    const namespace = obj.metadata.namespace ?? undefined;
    await client
      .request({
        method: 'PATCH',
        path: await client.pathOf({ ...obj, namespace, name: obj.metadata.name }),
        contentType: 'application/apply-patch+yaml',
        body: obj,
        query: { fieldManager: 'convoy-test', force: 'true', dryRun: 'All', fieldValidation: 'Strict' },
      })
      .catch((err: Error) => {
        throw new Error(`${what}: ${obj.kind} ${obj.metadata.name}: ${err.message}`);
      });
  }

  /** Renders `manifests` as the example Release would and dry-runs every object and hook. */
  async function check(app: string, manifestsDir: string, revision: string): Promise<number> {
    const spec = exampleRelease({
      name: app,
      namespace: 'default',
      url: 'file:///unused',
      targetNamespace: app,
    }).spec;
    const out = renderRelease(spec, { revision, files: await filesUnder(manifestsDir) });
    assert.ok(out.ok, out.ok ? '' : out.error.message);
    const all = [...out.render.objects, ...out.render.hooks];
    // The deployer creates a Namespace of the render before dry-running what lives in it; here the
    // namespace is created for real, once, for the same reason.
    for (const ns of all.filter((o) => o.kind === 'Namespace')) {
      if ((await client.get({ apiVersion: 'v1', kind: 'Namespace', name: ns.metadata.name })) === undefined)
        await client.create(ns);
    }
    for (const obj of all) await dryRun(obj, `${app}@${revision}`);
    return all.length;
  }

  test('there is at least one example app, with a README', async () => {
    const found = await apps();
    assert.ok(found.length >= 1, 'examples/<app>/manifests');
    for (const app of found) assert.ok(existsSync(join(EXAMPLES_DIR, app, 'README.md')), `${app}/README.md`);
  });

  test('every example app renders and its objects and hooks pass a strict server-side dry run', async () => {
    for (const app of await apps()) {
      const n = await check(app, join(EXAMPLES_DIR, app, EXAMPLE_MANIFESTS), 'worktree');
      assert.ok(n >= 3, `${app}: ${n} objects`);
    }
  });

  test('each broken.patch and error-rate.patch applies to its app, which still renders and dry-runs', async () => {
    for (const app of await apps()) {
      for (const patch of [BROKEN_PATCH, ERROR_RATE_PATCH]) {
        if (!existsSync(join(EXAMPLES_DIR, app, patch))) continue;
        const repo = join(cluster.work, `${app}-${patch}`);
        await initExampleRepo(repo, app);
        await git(repo, 'apply', patch);
        assert.notEqual(await git(repo, 'status', '--porcelain'), '', 'the patch changes something');
        await check(app, join(repo, EXAMPLE_MANIFESTS), patch);
      }
    }
  });

  test('every resource in examples/resources passes a strict server-side dry run', async () => {
    const folder = join(EXAMPLES_DIR, 'resources');
    const files = (await readdir(folder)).filter((f) => f.endsWith('.yaml')).sort();
    assert.ok(files.length > 0);
    for (const f of files) {
      const objs = parseAllDocuments(await readFile(join(folder, f), 'utf8'))
        .map((d) => d.toJSON() as KubeObject | null)
        .filter((o): o is KubeObject => o !== null);
      for (const obj of objs) {
        const namespaced = obj.kind !== 'GlobalHealthRuleSet';
        await dryRun(
          namespaced ? { ...obj, metadata: { ...obj.metadata, namespace: 'default' } } : obj,
          `resources/${f}`,
        );
      }
    }
  });
});
