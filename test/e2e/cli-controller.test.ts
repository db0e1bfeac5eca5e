// The CLI against the real release controller (convoy-controller-manager as a child process): `render`
// on a checkout prints the renderRef the controller computed for the same commit, and once the
// controller has applied it, `diff` finds nothing to change (the dry run is what the deployer does).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { API_VERSION } from '../../src/api/constants.ts';
import type { Release } from '../../src/api/types.ts';
import { runConvoy } from '../../src/cli/testsupport.ts';
import { type Fixture, makeRepo } from '../../src/render/git/testsupport.ts';
import { startClusterManager, useCrdCluster } from '../support/cluster.ts';
import type { ManagerProcess } from '../support/processes.ts';
import { cm, readyWith, waitForReady, wave } from '../support/release.ts';

let manager: ManagerProcess | undefined;
let repo: Fixture | undefined;
const { cp, client } = useCrdCluster(
  { namespaces: ['convoy-system'], scratch: 'convoy-cli-ctl-' },
  {
    setUp: async (cluster) => {
      manager = await startClusterManager(cluster, 'cli');
    },
    tearDown: async () => {
      await manager?.stop();
      await repo?.cleanup();
    },
  },
);

test('render DIR gives the controller renderRef for the same commit; diff after the sync is empty', async () => {
  const ns = 'cli-ctl';
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  repo = await makeRepo('cli');
  const sha = await repo.commit({
    'app/a.yaml': cm('a', { v: '1' }, wave(0)),
    'app/nested/b.yaml': cm('b', { v: '2' }, wave(1)),
  });
  await client.create<Release>({
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name: 'app', namespace: ns },
    spec: {
      source: { git: { url: repo.url, ref: { branch: 'main' }, path: 'app' } },
      render: { targetNamespace: ns },
    },
  } as Release);
  const r = await waitForReady(client, ns, 'app', readyWith({ revision: sha }), 'Ready');
  const controllerRef = r.status?.currentRender?.renderRef;
  assert.ok(controllerRef);

  const rendered = await runConvoy([
    'render',
    join(repo.root, 'work', 'app'),
    '--ref-only',
    '--target-namespace',
    ns,
  ]);
  assert.equal(rendered.code, 0, rendered.stderr);
  assert.equal(rendered.stdout.trim(), controllerRef);

  const diff = await runConvoy(['diff', 'app', '-n', ns, '--kubeconfig', cp.kubeconfigPath]);
  assert.equal(diff.code, 0, diff.stdout + diff.stderr);
  assert.match(diff.stdout, /^0 changed, 2 unchanged, 0 to prune$/m);

  const get = await runConvoy(['get', '-n', ns, '--kubeconfig', cp.kubeconfigPath]);
  // One STATE (releaseState's), no HEALTH without an assessment, and the same short REVISION and MESSAGE
  // the controller wrote for kubectl's printer columns.
  assert.match(
    get.stdout,
    new RegExp(`^app +Ready +- +${sha.slice(0, 12)} +\\d+s +applied revision ${sha} `, 'm'),
  );
});
