// resolveTarget on the real control plane with a second apiserver as a remote cluster: a Release that
// names a Cluster with a kubeconfig Secret gets clients that write to the second apiserver and not to
// the local one; a rotated Secret takes effect on the next resolve; a Cluster of another namespace is
// ClusterNotFound; a missing Secret is ClusterNotReady; a paused Cluster is ClusterPaused.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import type { Cluster, ClusterSpec, Release } from '../../src/api/types.ts';
import { type CachedCluster, ClusterClients } from '../../src/controller/cluster/index.ts';
import {
  ClusterPausedError,
  resolveTarget,
  type TargetDeps,
} from '../../src/controller/release/act/target.ts';
import { ClusterUnavailableError } from '../../src/controller/release/errors.ts';
import { applyObject } from '../../src/kube/apply.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { isKubeError } from '../../src/kube/errors.ts';
import { Informer, Transport } from '../../src/runtime/index.ts';
import { useCrdCluster } from '../support/cluster.ts';
import { applyKubeconfigSecret } from '../support/kubeconfig-secret.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'team';

function release(name: string, spec: { cluster?: string; serviceAccountName?: string } = {}): Release {
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { name, namespace: NS },
    spec: {
      source: { inline: { manifests: '' } },
      ...(spec.cluster === undefined ? {} : { cluster: { name: spec.cluster } }),
      ...(spec.serviceAccountName === undefined ? {} : { serviceAccountName: spec.serviceAccountName }),
    },
  };
}

const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS },
  data: { from: 'convoy' },
});
const cmRef = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name });

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (addr === null || typeof addr === 'string') throw new Error('no port');
  return addr.port;
}

describe('resolveTarget', () => {
  let remoteAdmin: KubeClient;
  let secondKubeconfig: string;
  let informer: Informer<CachedCluster>;
  let deps: TargetDeps;
  const { cp, client: local } = useCrdCluster(
    { secondCluster: true, namespaces: [NS, 'other'] },
    { setUp: watchClusters, tearDown: async () => informer?.stop() },
  );

  const secret = (name: string, text: string) => applyKubeconfigSecret(local, NS, name, text);
  /** Creates the Cluster and waits until the informer cache has this version of it. */
  const cluster = async (name: string, spec: ClusterSpec, namespace = NS): Promise<Cluster> => {
    const c = await applyObject<Cluster>(
      local,
      { apiVersion: 'convoy.kumodo.io/v1alpha1', kind: 'Cluster', metadata: { name, namespace }, spec },
      { fieldManager: 'convoy-test', force: true },
    );
    await waitFor(
      `Cluster ${namespace}/${name} cached`,
      async () =>
        informer.cache.get(`${namespace}/${name}`)?.metadata.resourceVersion === c.metadata.resourceVersion,
    );
    return c;
  };

  /** The second cluster's admin and kubeconfig, and a Cluster informer with the deps it feeds. */
  async function watchClusters() {
    assert.ok(cp.second);
    remoteAdmin = new KubeClient(cp.second.kubeConfig);
    secondKubeconfig = await readFile(cp.second.kubeconfigPath, 'utf8');
    await remoteAdmin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    informer = new Informer<CachedCluster>(new Transport(cp.kubeConfig), {
      path: '/apis/convoy.kumodo.io/v1alpha1/clusters',
    });
    informer.start();
    await informer.waitForSync();
    deps = {
      clients: new ClusterClients({ kubeConfig: cp.kubeConfig }),
      clusters: informer.cache,
      tenancy: { mode: 'cluster' },
    };
  }

  it('a Release on a Cluster with a kubeconfig Secret writes to that cluster, not the local one', async () => {
    await secret('second-kubeconfig', secondKubeconfig);
    await cluster('second', { kubeconfigSecretRef: { name: 'second-kubeconfig' } });
    const target = await resolveTarget(release('web', { cluster: 'second' }), deps);
    assert.equal(target.name, 'second');
    assert.equal(target.kubeConfig.getCurrentCluster()?.server, cp.second?.server);
    await applyObject(target.client, configMap('remote-only'), { fieldManager: 'convoy', force: true });
    const there = await remoteAdmin.get<{ data?: Record<string, string> }>(cmRef('remote-only'));
    assert.deepEqual(there?.data, { from: 'convoy' });
    assert.equal(await local.get(cmRef('remote-only')), undefined, 'absent from the local cluster');
    assert.equal(target.readClient, target.client, 'no impersonation on a remote cluster');
    // Cached: the same client (and its discovery) while neither the Cluster nor the Secret changes.
    assert.equal((await resolveTarget(release('web', { cluster: 'second' }), deps)).client, target.client);
  });

  it('a Release without spec.cluster writes to the local cluster', async () => {
    const target = await resolveTarget(release('web'), deps);
    assert.equal(target.name, 'local');
    await applyObject(target.client, configMap('local-only'), { fieldManager: 'convoy', force: true });
    assert.ok(await local.get(cmRef('local-only')));
    assert.equal(await remoteAdmin.get(cmRef('local-only')), undefined, 'absent from the second cluster');
  });

  it('a rotated kubeconfig Secret takes effect on the next resolve', async () => {
    const port = await closedPort();
    const doc = parse(secondKubeconfig) as { clusters: { cluster: { server: string } }[] };
    for (const c of doc.clusters) c.cluster.server = `https://127.0.0.1:${port}`;
    await secret('rotating-kubeconfig', stringify(doc));
    await cluster('rotating', { kubeconfigSecretRef: { name: 'rotating-kubeconfig' } });
    const before = await resolveTarget(release('web', { cluster: 'rotating' }), deps);
    await assert.rejects(
      applyObject(before.client, configMap('rotated'), { fieldManager: 'convoy', force: true }),
      (err: Error) => /ECONNREFUSED/.test(String((err as { cause?: unknown }).cause ?? err.message)),
    );
    await secret('rotating-kubeconfig', secondKubeconfig);
    const after = await resolveTarget(release('web', { cluster: 'rotating' }), deps);
    assert.notEqual(after.client, before.client);
    await applyObject(after.client, configMap('rotated'), { fieldManager: 'convoy', force: true });
    assert.ok(await remoteAdmin.get(cmRef('rotated')));
  });

  it('a Cluster of another namespace is ClusterNotFound', async () => {
    await cluster('elsewhere', { kubeconfigSecretRef: { name: 'second-kubeconfig' } }, 'other');
    await assert.rejects(resolveTarget(release('web', { cluster: 'elsewhere' }), deps), (err) => {
      assert.ok(err instanceof ClusterUnavailableError);
      assert.equal(err.reason, 'ClusterNotFound');
      assert.equal(
        err.message,
        'Cluster "elsewhere" not found in namespace "team" (a Release can only target a Cluster of its own namespace)',
      );
      return true;
    });
  });

  it('a Cluster whose kubeconfig Secret is missing is ClusterNotReady, naming the Secret', async () => {
    await cluster('nosecret', { kubeconfigSecretRef: { name: 'absent' } });
    await assert.rejects(resolveTarget(release('web', { cluster: 'nosecret' }), deps), (err) => {
      assert.ok(err instanceof ClusterUnavailableError);
      assert.equal(err.reason, 'ClusterNotReady');
      assert.equal(err.message, 'Cluster "nosecret": kubeconfig Secret team/absent not found');
      return true;
    });
  });

  it('a paused Cluster holds with ClusterPaused', async () => {
    await cluster('frozen', { kubeconfigSecretRef: { name: 'second-kubeconfig' }, paused: true });
    await assert.rejects(resolveTarget(release('web', { cluster: 'frozen' }), deps), (err) => {
      assert.ok(err instanceof ClusterPausedError);
      assert.equal(err.reason, 'ClusterPaused');
      assert.equal(err.stalled, false);
      return true;
    });
  });

  it('a Cluster without kubeconfig is the local cluster', async () => {
    await cluster('here', {});
    const target = await resolveTarget(release('web', { cluster: 'here' }), deps);
    assert.equal(target.name, 'here');
    await applyObject(target.client, configMap('here'), { fieldManager: 'convoy', force: true });
    assert.ok(await local.get(cmRef('here')));
    await assert.rejects(
      remoteAdmin.request({ method: 'GET', path: `/api/v1/namespaces/${NS}/configmaps/here` }),
      (e) => isKubeError(e) && e.code === 404,
    );
  });
});
