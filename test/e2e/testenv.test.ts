// The local control plane without workloads: CRDs are served, Server-Side Apply splits
// ownership between field managers and rejects conflicts, the second cluster is
// independent, the apiserver restarts in place, and stop() leaves nothing behind.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ApiException,
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { type ControlPlane, startControlPlane } from '../../src/testenv/index.ts';
import { assertStopsCleanly } from '../support/stopped.ts';
import { waitFor } from '../support/wait.ts';

const GROUP = 'testenv.convoy.kumodo.io';

const widgetCrd: V1CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { color: { type: 'string' }, size: { type: 'integer' } },
              },
            },
          },
        },
      },
    ],
  },
};

interface Widget extends KubernetesObject {
  spec?: { color?: string; size?: number };
}

const widget = (name: string, spec: Widget['spec']): Widget => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Widget',
  metadata: { name, namespace: 'default' },
  spec,
});

/** The top-level spec fields a manager owns, from managedFields' fieldsV1. */
function specFieldsOwnedBy(obj: KubernetesObject, manager: string): string[] {
  const entries = (obj.metadata?.managedFields ?? []).filter((m) => m.manager === manager);
  const fields = entries.flatMap((m) => {
    const spec = (m.fieldsV1 as Record<string, Record<string, unknown>> | undefined)?.['f:spec'];
    return spec ? Object.keys(spec).filter((k) => k.startsWith('f:')) : [];
  });
  return fields.sort();
}

async function establishedCrd(api: ApiextensionsV1Api, name: string) {
  return waitFor(`CRD ${name} Established`, async () => {
    const crd = await api.readCustomResourceDefinition({ name });
    return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') && crd;
  });
}

describe('testenv: apiserver only, with a second cluster', () => {
  let cp: ControlPlane;

  before(async () => {
    cp = await startControlPlane({ secondCluster: true });
  });
  after(async () => {
    await cp?.stop();
  });

  it('serves a CRD once Established', async () => {
    const ext = cp.kubeConfig.makeApiClient(ApiextensionsV1Api);
    await ext.createCustomResourceDefinition({ body: widgetCrd });
    await establishedCrd(ext, `widgets.${GROUP}`);
    const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
    // Discovery of a new group can lag Established by a moment; create retries until it is served.
    await waitFor('Widget create accepted', () =>
      custom.createNamespacedCustomObject({
        group: GROUP,
        version: 'v1',
        namespace: 'default',
        plural: 'widgets',
        body: widget('first', { color: 'green', size: 1 }),
      }),
    );
    const got = (await custom.getNamespacedCustomObject({
      group: GROUP,
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      name: 'first',
    })) as Widget;
    assert.deepEqual(got.spec, { color: 'green', size: 1 });
  });

  it('splits ownership between two Server-Side Apply managers and rejects a conflict unless forced', async () => {
    const objects = KubernetesObjectApi.makeApiClient(cp.kubeConfig);
    const apply = (obj: Widget, manager: string, force: boolean) =>
      objects.patch(obj, undefined, undefined, manager, force, PatchStrategy.ServerSideApply);

    await apply(widget('shared', { color: 'red' }), 'manager-a', false);
    const both = await apply(widget('shared', { size: 3 }), 'manager-b', false);
    assert.deepEqual(both.spec, { color: 'red', size: 3 });
    assert.deepEqual(specFieldsOwnedBy(both, 'manager-a'), ['f:color']);
    assert.deepEqual(specFieldsOwnedBy(both, 'manager-b'), ['f:size']);

    await assert.rejects(apply(widget('shared', { size: 3, color: 'blue' }), 'manager-b', false), (err) => {
      assert.ok(err instanceof ApiException, `expected ApiException, got ${err}`);
      assert.equal(err.code, 409);
      assert.match(String(typeof err.body === 'string' ? err.body : JSON.stringify(err.body)), /manager-a/);
      return true;
    });
    const unchanged = await objects.read<Widget>({
      apiVersion: `${GROUP}/v1`,
      kind: 'Widget',
      metadata: { name: 'shared', namespace: 'default' },
    });
    assert.equal(unchanged.spec?.color, 'red', 'the rejected apply changed nothing');

    const forced = await apply(widget('shared', { size: 3, color: 'blue' }), 'manager-b', true);
    assert.equal(forced.spec?.color, 'blue');
    assert.deepEqual(specFieldsOwnedBy(forced, 'manager-b'), ['f:color', 'f:size']);
    assert.deepEqual(specFieldsOwnedBy(forced, 'manager-a'), []);
  });

  it('keeps the second cluster independent of the first', async () => {
    const second = cp.second;
    assert.ok(second, 'secondCluster: true gives a second cluster');
    assert.notEqual(second.server, cp.server);
    const core1 = cp.kubeConfig.makeApiClient(CoreV1Api);
    const core2 = second.kubeConfig.makeApiClient(CoreV1Api);
    await core1.createNamespace({ body: { metadata: { name: 'only-in-first' } } });
    await core2.createNamespace({ body: { metadata: { name: 'only-in-second' } } });

    const status = (p: Promise<unknown>) =>
      p.then(
        () => 200,
        (err: unknown) => (err instanceof ApiException ? err.code : Promise.reject(err)),
      );
    assert.equal(await status(core1.readNamespace({ name: 'only-in-first' })), 200);
    assert.equal(await status(core2.readNamespace({ name: 'only-in-first' })), 404);
    assert.equal(await status(core2.readNamespace({ name: 'only-in-second' })), 200);
    assert.equal(await status(core1.readNamespace({ name: 'only-in-second' })), 404);
    const ext2 = second.kubeConfig.makeApiClient(ApiextensionsV1Api);
    assert.equal(await status(ext2.readCustomResourceDefinition({ name: `widgets.${GROUP}` })), 404);
  });

  it('restarts the apiserver on the same port with its data', async () => {
    const before = cp.processes().find((p) => p.name === 'kube-apiserver');
    await cp.restartApiServer();
    const after = cp.processes().find((p) => p.name === 'kube-apiserver');
    assert.ok(before && after);
    assert.notEqual(after.pid, before.pid, 'a new process');
    const core = cp.kubeConfig.makeApiClient(CoreV1Api);
    const ns = await core.readNamespace({ name: 'only-in-first' });
    assert.equal(ns.metadata?.name, 'only-in-first');
  });

  it('stop() kills every process and removes the temp dir', async () => {
    await assertStopsCleanly(cp, ['etcd', 'kube-apiserver', 'kube-apiserver-second']);
  });
});
