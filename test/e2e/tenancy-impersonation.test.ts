// Impersonation on the real control plane: a Release with spec.serviceAccountName gets a write client
// that acts as that service account. Bound to a Role that allows writing ConfigMaps only in namespace
// a, it can apply there, but an apply (and its server-side dry run) into namespace b is refused with a
// 403 naming the account and the namespace, and nothing is created; reads stay convoy's own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Release } from '../../src/api/types.ts';
import { ClusterClients } from '../../src/controller/cluster/index.ts';
import { resolveTarget, type Target } from '../../src/controller/release/act/target.ts';
import { applyObject } from '../../src/kube/apply.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { KubeApiError } from '../../src/kube/errors.ts';
import { type ControlPlane, startControlPlane } from '../../src/testenv/index.ts';
import { configMapWriter } from '../support/rbac.ts';

const A = 'tenant-a';
const B = 'tenant-b';
const SA = 'deployer';

function release(serviceAccountName?: string): Release {
  return {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { name: 'web', namespace: A },
    spec: {
      source: { inline: { manifests: '' } },
      ...(serviceAccountName === undefined ? {} : { serviceAccountName }),
    },
  };
}

const configMap = (namespace: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels: { 'convoy.kumodo.io/release': `${A}.web` } },
  data: { k: 'v' },
});
const cmRef = (namespace: string, name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });

describe('impersonation of spec.serviceAccountName', () => {
  let cp: ControlPlane;
  let admin: KubeClient;
  let target: Target;

  before(async () => {
    cp = await startControlPlane();
    admin = new KubeClient(cp.kubeConfig);
    for (const ns of [A, B])
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await configMapWriter(admin, A, SA, ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']);
    // resolveTarget needs no Cluster for a local Release: an empty cache.
    target = await resolveTarget(release(SA), {
      clients: new ClusterClients({ kubeConfig: cp.kubeConfig }),
      clusters: { get: () => undefined },
      tenancy: { mode: 'tenant' },
    });
  });

  after(async () => {
    await cp?.stop();
  });

  it('acts as the service account with its groups', async () => {
    const review = await target.client.request<{
      status: { userInfo: { username: string; groups: string[] } };
    }>({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    assert.equal(review.status.userInfo.username, `system:serviceaccount:${A}:${SA}`);
    assert.deepEqual([...review.status.userInfo.groups].sort(), [
      'system:authenticated',
      'system:serviceaccounts',
      `system:serviceaccounts:${A}`,
    ]);
  });

  it('writes as the service account where its Role allows', async () => {
    const applied = await applyObject(target.client, configMap(A, 'allowed'), {
      fieldManager: 'convoy',
      force: true,
    });
    assert.equal(applied.metadata.namespace, A);
    assert.ok(await admin.get(cmRef(A, 'allowed')));
  });

  it('cannot write into another namespace: 403 naming the account and the namespace, nothing created', async () => {
    for (const dryRun of [true, false]) {
      await assert.rejects(
        applyObject(target.client, configMap(B, 'denied'), { fieldManager: 'convoy', force: true, dryRun }),
        (err) => {
          assert.ok(err instanceof KubeApiError, String(err));
          assert.equal(err.code, 403);
          assert.equal(err.reason, 'Forbidden');
          assert.match(
            err.apiMessage,
            /User "system:serviceaccount:tenant-a:deployer" cannot patch resource "configmaps"/,
          );
          assert.match(err.apiMessage, /in the namespace "tenant-b"/);
          return true;
        },
        `dryRun=${dryRun}`,
      );
    }
    assert.equal(await admin.get(cmRef(B, 'denied')), undefined, 'nothing created in tenant-b');
  });

  it("reads stay convoy's own (not impersonated)", async () => {
    await applyObject(admin, configMap(B, 'visible'), { fieldManager: 'convoy-test', force: true });
    assert.ok(await target.readClient.get(cmRef(B, 'visible')));
    await assert.rejects(
      target.client.get(cmRef(B, 'visible')),
      (err) => err instanceof KubeApiError && err.code === 403,
    );
  });

  it('without serviceAccountName, in cluster mode, writes go as convoy itself', async () => {
    const own = await resolveTarget(release(), {
      clients: new ClusterClients({ kubeConfig: cp.kubeConfig }),
      clusters: { get: () => undefined },
      tenancy: { mode: 'cluster' },
    });
    assert.equal(own.client, own.readClient);
    await applyObject(own.client, configMap(B, 'as-convoy'), { fieldManager: 'convoy', force: true });
    assert.ok(await admin.get(cmRef(B, 'as-convoy')));
  });
});
