// Tenancy at the Release level, with the release controller and the cluster controller running on one
// harness against the real control plane (and a second apiserver as a remote cluster):
// - a Release whose service account may write only its own namespace, rendering an object into another
//   namespace, gets Ready=False DryRunFailed naming the account and the namespace, and nothing is applied;
// - a Release targeting a Cluster whose kubeconfig Secret points at the second apiserver applies there,
//   and not in the local cluster.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { stringify } from 'yaml';
import type { Condition, Release } from '../../src/api/types.ts';
import { startClusterController } from '../../src/cmd/cluster-controller-wiring.ts';
import { registerReleaseController } from '../../src/controller/release/controller.ts';
import { applyObject } from '../../src/kube/apply.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { Harness } from '../../src/runtime/index.ts';
import { useCrdCluster } from '../support/cluster.ts';
import { applyKubeconfigSecret } from '../support/kubeconfig-secret.ts';
import { configMapWriter } from '../support/rbac.ts';
import { waitFor } from '../support/wait.ts';

const A = 'tenant-a';
const B = 'tenant-b';
const SA = 'deployer';

const configMap = (namespace: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data: { k: 'v' },
});
const cmRef = (namespace: string, name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });

describe('tenancy: Releases', () => {
  let remoteAdmin: KubeClient;
  let harness: Harness;
  const cluster = useCrdCluster(
    { secondCluster: true, namespaces: [A, B, 'convoy-system'], scratch: 'convoy-tenancy-git-' },
    { setUp: setUpControllers, tearDown: async () => harness?.stop() },
  );
  const { cp, client: admin } = cluster;

  const release = (namespace: string, name: string, spec: Record<string, unknown>, objects: object[]) =>
    applyObject(
      admin,
      {
        apiVersion: 'convoy.kumodo.io/v1alpha1',
        kind: 'Release',
        metadata: { name, namespace },
        spec: { source: { inline: { manifests: objects.map((o) => stringify(o)).join('---\n') } }, ...spec },
      },
      { fieldManager: 'convoy-test', force: true },
    );
  const readyOf = (namespace: string, name: string, pred: (c: Condition) => boolean) =>
    waitFor(
      `Release ${namespace}/${name} Ready`,
      async () => {
        const r = await admin.get<Release>({
          apiVersion: 'convoy.kumodo.io/v1alpha1',
          kind: 'Release',
          namespace,
          name,
        });
        const ready = r?.status?.conditions?.find((c) => c.type === 'Ready');
        return ready !== undefined && pred(ready) ? ready : undefined;
      },
      { timeoutMs: 60_000 },
    );

  /** The cluster and release controllers in-process, on the cluster. */
  async function setUpControllers() {
    assert.ok(cp.second);
    remoteAdmin = new KubeClient(cp.second.kubeConfig);
    await remoteAdmin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: A } });
    await configMapWriter(admin, A, SA, ['get', 'list', 'create', 'patch', 'delete']);

    harness = new Harness({
      name: 'tenancy-test',
      kubeConfig: cp.kubeConfig,
      log: pino({ level: 'silent' }),
    });
    // The cluster controller first: it owns the shared Cluster informer's options.
    startClusterController(harness, { kubeConfig: cp.kubeConfig, probeIntervalMs: 2_000 });
    registerReleaseController(harness, {
      tenancy: { mode: 'cluster' },
      kubeConfig: cp.kubeConfig,
      leaseNamespace: 'convoy-system',
      gitCacheDir: cluster.work,
    });
    await harness.start();
  }

  it('a Release whose service account may write only its namespace applies nothing outside it', async () => {
    await release(A, 'spill', { serviceAccountName: SA }, [configMap(A, 'mine'), configMap(B, 'theirs')]);
    const ready = await readyOf(A, 'spill', (c) => c.reason === 'DryRunFailed');
    assert.equal(ready.status, 'False');
    assert.match(ready.message, /system:serviceaccount:tenant-a:deployer/);
    assert.match(ready.message, /namespace "tenant-b"/);
    assert.equal(await admin.get(cmRef(B, 'theirs')), undefined, 'nothing in tenant-b');
    assert.equal(
      await admin.get(cmRef(A, 'mine')),
      undefined,
      'nothing applied at all: the dry run stops the sync',
    );
  });

  it('a service account that does not exist is named as missing, not as merely forbidden', async () => {
    await release(A, 'nobody', { serviceAccountName: 'nobody' }, [configMap(A, 'by-nobody')]);
    const ready = await readyOf(A, 'nobody', (c) => c.reason === 'DryRunFailed');
    assert.match(ready.message, /ServiceAccount tenant-a\/nobody \(spec.serviceAccountName\) does not exist/);
    assert.equal(await admin.get(cmRef(A, 'by-nobody')), undefined, 'nothing applied');
  });

  it('the same service account applies a render that stays in its namespace', async () => {
    await release(A, 'contained', { serviceAccountName: SA }, [configMap(A, 'contained')]);
    await readyOf(A, 'contained', (c) => c.status === 'True');
    assert.ok(await admin.get(cmRef(A, 'contained')), 'applied in tenant-a');
  });

  it('a Release targeting the second cluster applies there, not in the local cluster', async () => {
    const second = cp.second;
    assert.ok(second);
    await applyKubeconfigSecret(admin, A, 'second-kubeconfig', await readFile(second.kubeconfigPath, 'utf8'));
    await applyObject(
      admin,
      {
        apiVersion: 'convoy.kumodo.io/v1alpha1',
        kind: 'Cluster',
        metadata: { name: 'second', namespace: A },
        spec: { kubeconfigSecretRef: { name: 'second-kubeconfig' } },
      },
      { fieldManager: 'convoy-test', force: true },
    );
    await release(A, 'remote', { cluster: { name: 'second' } }, [configMap(A, 'remote-cm')]);
    await readyOf(A, 'remote', (c) => c.status === 'True');
    assert.ok(await remoteAdmin.get(cmRef(A, 'remote-cm')), 'applied on the second cluster');
    assert.equal(await admin.get(cmRef(A, 'remote-cm')), undefined, 'not applied locally');
  });
});
