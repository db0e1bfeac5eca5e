// The one transport against the real apiserver: requests reuse pooled keep-alive connections,
// impersonating copies of a KubeConfig share that pool yet act as the impersonated user, API
// failures are KubeApiErrors with their origin, and the pool recovers from an apiserver restart.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../../src/kube/client.ts';
import { KubeApiError } from '../../src/kube/errors.ts';
import { transportStats } from '../../src/kube/transport.ts';
import { type ControlPlane, startControlPlane } from '../../src/testenv/index.ts';

const SA_USER = 'system:serviceaccount:transport-test:nobody';

type Review = { status?: { userInfo?: { username?: string } } };
const whoAmI = async (c: KubeClient): Promise<string | undefined> =>
  (
    await c.request<Review>({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    })
  ).status?.userInfo?.username;

/** A copy of kc's current context whose user impersonates `user` (a separate KubeConfig object). */
function impersonating(kc: KubeConfig, user: string): KubeConfig {
  const cluster = kc.getCurrentCluster();
  const current = kc.getCurrentUser();
  assert.ok(cluster && current);
  const copy = new KubeConfig();
  copy.loadFromOptions({
    clusters: [cluster],
    users: [{ ...current, impersonateUser: user }],
    contexts: [{ name: 'as', cluster: cluster.name, user: current.name }],
    currentContext: 'as',
  });
  return copy;
}

describe('kube transport', () => {
  let cp: ControlPlane;
  let admin: KubeClient;

  before(async () => {
    cp = await startControlPlane();
    admin = new KubeClient(cp.kubeConfig);
  });
  after(async () => {
    await cp?.stop();
  });

  it('reuses one connection for sequential requests', async () => {
    await admin.list({ apiVersion: 'v1', kind: 'Namespace' });
    const before = transportStats();
    for (let i = 0; i < 30; i++) await admin.list({ apiVersion: 'v1', kind: 'Namespace' });
    const after = transportStats();
    assert.equal((after.requests.GET ?? 0) - (before.requests.GET ?? 0), 30);
    assert.equal(after.connections - before.connections, 0, 'a sequential request opened a new connection');
  });

  it('an impersonating KubeConfig shares the pool and acts as the impersonated user', async () => {
    const as = new KubeClient(impersonating(cp.kubeConfig, SA_USER));
    assert.notEqual(await whoAmI(admin), SA_USER);
    const before = transportStats();
    assert.equal(await whoAmI(as), SA_USER);
    assert.equal(
      transportStats().connections - before.connections,
      0,
      'impersonation opened its own connection',
    );
    // The service account has no RBAC: the impersonated identity is the one authorized.
    const err = await as.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof KubeApiError, String(err));
    assert.equal(err.code, 403);
    assert.equal(err.origin, 'response');
    assert.match(err.apiMessage, /system:serviceaccount:transport-test:nobody/);
    // and the admin client on the same pool is still admin (a 403 would throw)
    await admin.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' });
  });

  it('recovers from an apiserver restart: pooled connections are replaced', async () => {
    await admin.list({ apiVersion: 'v1', kind: 'Namespace' });
    const before = transportStats();
    await cp.restartApiServer();
    const list = await admin.list({ apiVersion: 'v1', kind: 'Namespace' });
    assert.ok(list.length > 0);
    assert.ok(
      transportStats().connections > before.connections,
      'the request after the restart used a dead socket?',
    );
  });
});
