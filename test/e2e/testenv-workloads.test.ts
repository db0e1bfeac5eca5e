// The local control plane with workloads: kwok's simulated nodes run Deployments and Jobs,
// and the test stages selected by pod label hold a pod unready, fail a Job's pod, or delay
// readiness by the annotated time; what public charts ask for by default (ephemeral-storage, a
// LoadBalancer address, a claim that binds) is there.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AppsV1Api,
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  type V1Deployment,
  type V1Job,
  type V1Pod,
  type V1PodTemplateSpec,
} from '@kubernetes/client-node';
import {
  type ControlPlane,
  DEFAULT_STORAGE_CLASS,
  startControlPlane,
  TEST_ANNOTATION_READY_DELAY,
  TEST_FAIL_MESSAGE,
  TEST_LABEL_DELAY,
  TEST_LABEL_FAIL,
  TEST_LABEL_NEVER_READY,
} from '../../src/testenv/index.ts';
import { assertStopsCleanly } from '../support/stopped.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'default';

const podTemplate = (
  app: string,
  labels: Record<string, string> = {},
  restartPolicy = 'Always',
): V1PodTemplateSpec => ({
  metadata: { labels: { app, ...labels } },
  spec: { restartPolicy, containers: [{ name: 'main', image: 'registry.invalid/convoy/noop:1' }] },
});

const deployment = (name: string, replicas: number, labels?: Record<string, string>): V1Deployment => ({
  metadata: { name, namespace: NS },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: podTemplate(name, labels) },
});

const job = (name: string, labels?: Record<string, string>): V1Job => ({
  metadata: { name, namespace: NS },
  // backoffLimit 0: one failed pod fails the Job, instead of retries with 10 s+ back-off.
  spec: { backoffLimit: 0, template: podTemplate(name, labels, 'Never') },
});

const isAvailable = (d: V1Deployment) =>
  d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') ?? false;
const isReady = (p: V1Pod) =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const jobCondition = (j: V1Job, type: string) =>
  j.status?.conditions?.find((c) => c.type === type && c.status === 'True');

describe('testenv: workloads on simulated nodes', () => {
  let cp: ControlPlane;
  let apps: AppsV1Api;
  let batch: BatchV1Api;
  let core: CoreV1Api;
  let coordination: CoordinationV1Api;

  before(async () => {
    cp = await startControlPlane({ workloads: true, nodes: 2 });
    apps = cp.kubeConfig.makeApiClient(AppsV1Api);
    batch = cp.kubeConfig.makeApiClient(BatchV1Api);
    core = cp.kubeConfig.makeApiClient(CoreV1Api);
    coordination = cp.kubeConfig.makeApiClient(CoordinationV1Api);
  });
  after(async () => {
    await cp?.stop();
  });

  it('starts the requested number of Ready nodes', async () => {
    const nodes = await core.listNode();
    assert.deepEqual(nodes.items.map((n) => n.metadata?.name).sort(), [...cp.nodeNames].sort());
    assert.equal(cp.nodeNames.length, 2);
  });

  it('keeps every node Lease renewed, so node-lifecycle never marks the nodes unhealthy', async () => {
    // Without renewals node-lifecycle takes a node as gone after --node-monitor-grace-period (50 s) and
    // sets every pod on it Ready=False: long tests and benches then see Deployments fall unavailable.
    const renewTime = async (node: string) => {
      const lease = await coordination.readNamespacedLease({ name: node, namespace: 'kube-node-lease' });
      return lease.spec?.renewTime === undefined ? undefined : new Date(lease.spec.renewTime).getTime();
    };
    for (const node of cp.nodeNames) {
      const first = await waitFor(`a Lease for ${node}`, () => renewTime(node).catch(() => undefined), {
        timeoutMs: 30_000,
      });
      await waitFor(
        `the Lease of ${node} renewed after ${new Date(first).toISOString()}`,
        async () => ((await renewTime(node)) ?? 0) > first,
        { timeoutMs: 40_000, intervalMs: 500 },
      );
    }
  });

  it('makes a 3-replica Deployment Available across the simulated nodes', async () => {
    await apps.createNamespacedDeployment({ namespace: NS, body: deployment('web', 3) });
    const d = await waitFor('Deployment web Available with 3 ready replicas', async () => {
      const d = await apps.readNamespacedDeployment({ namespace: NS, name: 'web' });
      return isAvailable(d) && d.status?.readyReplicas === 3 && d.status?.availableReplicas === 3 && d;
    });
    assert.equal(d.status?.replicas, 3);
    const pods = await core.listNamespacedPod({ namespace: NS, labelSelector: 'app=web' });
    assert.equal(pods.items.length, 3);
    for (const p of pods.items) {
      assert.ok(cp.nodeNames.includes(p.spec?.nodeName ?? ''), `pod ${p.metadata?.name} is on a kwok node`);
      assert.ok(isReady(p));
      assert.ok(p.status?.podIP, 'kwok gives the pod an IP');
    }
  });

  it('keeps a Deployment whose pods carry the never-ready label unavailable', async () => {
    // Created first, so by the time its sibling is Available its pods have had every chance.
    await apps.createNamespacedDeployment({
      namespace: NS,
      body: deployment('stuck', 2, { [TEST_LABEL_NEVER_READY]: 'true' }),
    });
    await apps.createNamespacedDeployment({ namespace: NS, body: deployment('sibling', 2) });
    await waitFor('Deployment sibling Available', async () =>
      isAvailable(await apps.readNamespacedDeployment({ namespace: NS, name: 'sibling' })),
    );
    // kwok has handled the stuck pods too: they run, but are not Ready.
    const pods = await waitFor('stuck pods Running', async () => {
      const list = await core.listNamespacedPod({ namespace: NS, labelSelector: 'app=stuck' });
      return list.items.length === 2 && list.items.every((p) => p.status?.phase === 'Running') && list.items;
    });
    for (const p of pods) assert.equal(isReady(p), false, `pod ${p.metadata?.name} stays unready`);
    const stuck = await apps.readNamespacedDeployment({ namespace: NS, name: 'stuck' });
    assert.equal(stuck.status?.readyReplicas ?? 0, 0);
    assert.equal(stuck.status?.availableReplicas ?? 0, 0);
    assert.equal(isAvailable(stuck), false);
  });

  it('completes a Job', async () => {
    await batch.createNamespacedJob({ namespace: NS, body: job('finishes') });
    const j = await waitFor('Job finishes Complete', async () => {
      const j = await batch.readNamespacedJob({ namespace: NS, name: 'finishes' });
      return jobCondition(j, 'Complete') && j;
    });
    assert.equal(j.status?.succeeded, 1);
    assert.equal(jobCondition(j, 'Failed'), undefined);
  });

  it('fails a Job whose pod carries the fail label, with the stage message on the pod', async () => {
    await batch.createNamespacedJob({ namespace: NS, body: job('breaks', { [TEST_LABEL_FAIL]: 'true' }) });
    const j = await waitFor('Job breaks Failed', async () => {
      const j = await batch.readNamespacedJob({ namespace: NS, name: 'breaks' });
      return jobCondition(j, 'Failed') && j;
    });
    assert.equal(jobCondition(j, 'Complete'), undefined);
    assert.equal(j.status?.failed, 1);
    const pods = await core.listNamespacedPod({ namespace: NS, labelSelector: 'app=breaks' });
    assert.equal(pods.items.length, 1);
    const pod = pods.items[0];
    assert.equal(pod?.status?.phase, 'Failed');
    assert.equal(pod?.status?.message, TEST_FAIL_MESSAGE);
    const terminated = pod?.status?.containerStatuses?.[0]?.state?.terminated;
    assert.equal(terminated?.exitCode, 1);
  });

  it('makes a delayed pod Ready only after its annotated delay', async () => {
    const delayMs = 3000;
    const pod = (name: string, delayed: boolean): V1Pod => ({
      metadata: {
        name,
        namespace: NS,
        labels: delayed ? { [TEST_LABEL_DELAY]: 'true' } : {},
        annotations: delayed ? { [TEST_ANNOTATION_READY_DELAY]: `${delayMs / 1000}s` } : {},
      },
      spec: { containers: [{ name: 'main', image: 'registry.invalid/convoy/noop:1' }] },
    });
    const readyAfter = async (name: string) => {
      const started = Date.now();
      await waitFor(
        `pod ${name} Ready`,
        async () => isReady(await core.readNamespacedPod({ namespace: NS, name })),
        { intervalMs: 50 },
      );
      return Date.now() - started;
    };
    await core.createNamespacedPod({ namespace: NS, body: pod('slow', true) });
    const slow = readyAfter('slow');
    await core.createNamespacedPod({ namespace: NS, body: pod('quick', false) });
    const quickMs = await readyAfter('quick');
    const slowMs = await slow;
    assert.ok(slowMs >= delayMs, `delayed pod Ready after ${slowMs}ms, before its ${delayMs}ms delay`);
    assert.ok(slowMs < delayMs + 10_000, `delayed pod took ${slowMs}ms`);
    assert.ok(quickMs < delayMs, `an undelayed pod is Ready at once (${quickMs}ms)`);
  });

  it('runs what public charts ask for by default: ephemeral-storage, a LoadBalancer address, a bound claim', async () => {
    // Bitnami's defaults: resource requests with ephemeral-storage, a PVC without a class, a LoadBalancer.
    const withStorage = deployment('eph', 2);
    const main = withStorage.spec?.template.spec?.containers[0];
    assert.ok(main);
    main.resources = {
      requests: { cpu: '100m', memory: '128Mi', 'ephemeral-storage': '50Mi' },
      limits: { 'ephemeral-storage': '2Gi' },
    };
    await apps.createNamespacedDeployment({ namespace: NS, body: withStorage });
    await core.createNamespacedService({
      namespace: NS,
      body: {
        metadata: { name: 'lb' },
        spec: { type: 'LoadBalancer', selector: { app: 'eph' }, ports: [{ port: 80 }] },
      },
    });
    await core.createNamespacedPersistentVolumeClaim({
      namespace: NS,
      body: {
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '8Gi' } } },
      },
    });

    await waitFor(
      'Deployment eph (requesting ephemeral-storage) Available with 2 ready replicas',
      async () => {
        const d = await apps.readNamespacedDeployment({ namespace: NS, name: 'eph' });
        return isAvailable(d) && d.status?.readyReplicas === 2;
      },
    );
    const svc = await waitFor('Service lb with a load balancer ingress address', async () => {
      const s = await core.readNamespacedService({ namespace: NS, name: 'lb' });
      return (s.status?.loadBalancer?.ingress?.length ?? 0) > 0 && s;
    });
    assert.equal(svc.status?.loadBalancer?.ingress?.[0]?.ip, svc.spec?.clusterIP);
    const pvc = await waitFor('PVC data Bound', async () => {
      const c = await core.readNamespacedPersistentVolumeClaim({ namespace: NS, name: 'data' });
      return c.status?.phase === 'Bound' && c;
    });
    assert.equal(pvc.spec?.storageClassName, DEFAULT_STORAGE_CLASS, 'the default class is set by admission');
    const volume = pvc.spec?.volumeName ?? '';
    assert.notEqual(volume, '');

    // A bound claim can be deleted (its protection finalizer is lifted), and its volume goes with it.
    await core.deleteNamespacedPersistentVolumeClaim({ namespace: NS, name: 'data' });
    await waitFor('PVC data and its PersistentVolume gone', async () => {
      const claims = await core.listNamespacedPersistentVolumeClaim({ namespace: NS });
      const volumes = await core.listPersistentVolume();
      return (
        !claims.items.some((c) => c.metadata?.name === 'data') &&
        !volumes.items.some((v) => v.metadata?.name === volume)
      );
    });
  });

  it('stop() kills every process and removes the temp dir', async () => {
    await assertStopsCleanly(cp, [
      'etcd',
      'kube-apiserver',
      'kube-controller-manager',
      'kube-scheduler',
      'kwok',
    ]);
  });
});
