// The cluster controller on the real control plane with a second apiserver as a remote cluster: it
// writes Ready=True/Reachable with the server version for a Cluster whose kubeconfig Secret points at
// the second apiserver (and for one without kubeconfig: the local cluster), Unreachable for a closed
// port and for a server that never answers (timeout), SecretNotFound until the Secret appears (the
// periodic probe notices it), InvalidKubeconfig for an exec kubeconfig without echoing its token,
// Paused without probing — and a steady probe writes nothing.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { parse, stringify } from 'yaml';
import type { Cluster, ClusterSpec, Condition } from '../../src/api/types.ts';
import { startClusterController } from '../../src/cmd/cluster-controller-wiring.ts';
import type { ProbeResult } from '../../src/controller/cluster/index.ts';
import { applyObject } from '../../src/kube/apply.ts';
import { KubeClient, type RawRequest } from '../../src/kube/client.ts';
import { Harness } from '../../src/runtime/index.ts';
import { type ControlPlane, startControlPlane } from '../../src/testenv/index.ts';
import { installCrds } from '../support/crds.ts';
import { applyKubeconfigSecret } from '../support/kubeconfig-secret.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'fleet';
const PROBE_INTERVAL_MS = 1_000;
const PROBE_TIMEOUT_MS = 2_000;

/** A port that accepts TCP and then says nothing: a probe can only time out. */
async function silentServer(): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('no port');
  return { server, port: addr.port, sockets };
}

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const { server, port } = await silentServer();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function withServer(kubeconfigText: string, server: string): string {
  const doc = parse(kubeconfigText) as {
    clusters: { cluster: { server: string } }[];
  };
  for (const c of doc.clusters) c.cluster.server = server;
  return stringify(doc);
}

/** Records the path of every PATCH the controller sends (status writes are PATCHes to .../status). */
const patches: string[] = [];
class RecordingClient extends KubeClient {
  override async request<T = unknown>(req: RawRequest): Promise<T> {
    if (req.method === 'PATCH') patches.push(req.path);
    return await super.request<T>(req);
  }
}

describe('cluster controller', () => {
  let cp: ControlPlane;
  let admin: KubeClient;
  let harness: Harness;
  let secondKubeconfig: string;
  let secondVersion: string;
  let silent: Awaited<ReturnType<typeof silentServer>>;
  const probes: { key: string; result: ProbeResult }[] = [];

  const secret = (name: string, text: string) => applyKubeconfigSecret(admin, NS, name, text);
  const cluster = (name: string, spec: ClusterSpec) =>
    applyObject(
      admin,
      { apiVersion: 'convoy.kumodo.io/v1alpha1', kind: 'Cluster', metadata: { name, namespace: NS }, spec },
      { fieldManager: 'convoy-test', force: true },
    );
  const get = (name: string) =>
    admin.get<Cluster>({ apiVersion: 'convoy.kumodo.io/v1alpha1', kind: 'Cluster', namespace: NS, name });
  const readyWith = (name: string, reason: string) =>
    waitFor(
      `Cluster ${name} Ready reason ${reason}`,
      async () => {
        const c = await get(name);
        const ready = c?.status?.conditions?.find((x) => x.type === 'Ready');
        return ready?.reason === reason ? { cluster: c as Cluster, ready: ready as Condition } : undefined;
      },
      { timeoutMs: 30_000 },
    );

  before(async () => {
    cp = await startControlPlane({ secondCluster: true });
    await installCrds(cp.kubeConfig);
    admin = new KubeClient(cp.kubeConfig);
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    const second = cp.second;
    assert.ok(second, 'second cluster');
    secondKubeconfig = await readFile(second.kubeconfigPath, 'utf8');
    secondVersion = (
      await new KubeClient(second.kubeConfig).request<{ gitVersion: string }>({
        method: 'GET',
        path: '/version',
      })
    ).gitVersion;
    silent = await silentServer();
    harness = new Harness({
      name: 'cluster-test',
      kubeConfig: cp.kubeConfig,
      log: pino({ level: 'silent' }),
    });
    startClusterController(harness, {
      kubeConfig: cp.kubeConfig,
      probeIntervalMs: PROBE_INTERVAL_MS,
      probeTimeoutMs: PROBE_TIMEOUT_MS,
      onProbe: (key, result) => probes.push({ key, result }),
      makeClient: (kc) => new RecordingClient(kc),
    });
    await harness.start();
  });

  after(async () => {
    await harness?.stop();
    for (const s of silent?.sockets ?? []) s.destroy();
    silent?.server.close();
    await cp?.stop();
  });

  it('marks a Cluster whose kubeconfig Secret points at the second apiserver Ready with its version', async () => {
    await secret('second-kubeconfig', secondKubeconfig);
    await cluster('second', { kubeconfigSecretRef: { name: 'second-kubeconfig', key: 'kubeconfig' } });
    const { cluster: c, ready } = await readyWith('second', 'Reachable');
    assert.equal(ready.status, 'True');
    assert.equal(ready.message, `Kubernetes ${secondVersion}`);
    assert.match(secondVersion, /^v1\.\d+\.\d+/);
    assert.equal(c.status?.serverVersion, secondVersion);
    assert.equal(c.status?.observedGeneration, c.metadata.generation);
    assert.equal(ready.observedGeneration, c.metadata.generation);
    const owner = c.metadata.managedFields?.find((m) => m.subresource === 'status');
    assert.equal(owner?.manager, 'convoy-controller');
  });

  it('a steady probe writes nothing', async () => {
    const { cluster: first } = await readyWith('second', 'Reachable');
    const count = () => probes.filter((p) => p.key === `${NS}/second`).length;
    const statusPath = `/apis/convoy.kumodo.io/v1alpha1/namespaces/${NS}/clusters/second/status`;
    const writes = () => patches.filter((p) => p === statusPath).length;
    assert.ok(writes() >= 1, 'the first probe wrote the status');
    // onProbe runs after the probe's write, so from here on every counted probe has written or skipped.
    const start = count();
    const writesBefore = writes();
    await waitFor('three more probes of fleet/second', async () => count() >= start + 3, {
      timeoutMs: 30_000,
    });
    assert.equal(writes(), writesBefore, 'no status PATCH while the cluster stays the same');
    const later = await get('second');
    assert.equal(later?.metadata.resourceVersion, first.metadata.resourceVersion);
  });

  it('marks a Cluster without kubeconfig (the local cluster) Ready', async () => {
    await cluster('local', {});
    const { cluster: c, ready } = await readyWith('local', 'Reachable');
    assert.equal(ready.status, 'True');
    assert.match(c.status?.serverVersion ?? '', /^v1\./);
  });

  it('marks a Cluster whose kubeconfig points at a closed port Unreachable, naming the server and the cause', async () => {
    const port = await closedPort();
    await secret('closed-kubeconfig', withServer(secondKubeconfig, `https://127.0.0.1:${port}`));
    await cluster('closed', { kubeconfigSecretRef: { name: 'closed-kubeconfig' } });
    const { cluster: c, ready } = await readyWith('closed', 'Unreachable');
    assert.equal(ready.status, 'False');
    assert.equal(
      ready.message,
      `cannot reach https://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    assert.equal(c.status?.serverVersion, undefined);
  });

  it('marks a Cluster whose server never answers Unreachable after the probe timeout', async () => {
    await secret('silent-kubeconfig', withServer(secondKubeconfig, `https://127.0.0.1:${silent.port}`));
    await cluster('silent', { kubeconfigSecretRef: { name: 'silent-kubeconfig' } });
    const { ready } = await readyWith('silent', 'Unreachable');
    assert.equal(ready.message, `cannot reach https://127.0.0.1:${silent.port}: no answer within 2s`);
  });

  it('reports SecretNotFound until the Secret exists, then Ready from the periodic probe', async () => {
    await cluster('late', { kubeconfigSecretRef: { name: 'late-kubeconfig' } });
    const missing = await readyWith('late', 'SecretNotFound');
    assert.equal(missing.ready.status, 'False');
    assert.equal(missing.ready.message, `kubeconfig Secret ${NS}/late-kubeconfig not found`);
    await secret('late-kubeconfig', secondKubeconfig);
    const found = await readyWith('late', 'Reachable');
    assert.equal(found.cluster.status?.serverVersion, secondVersion);
    assert.ok(
      found.ready.lastTransitionTime >= missing.ready.lastTransitionTime,
      'lastTransitionTime moves with the status',
    );
  });

  it('refuses an exec kubeconfig as InvalidKubeconfig without echoing it', async () => {
    const token = 'never-show-this-token';
    const text = stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'x', cluster: { server: 'https://127.0.0.1:6443' } }],
      users: [
        {
          name: 'x',
          user: { token, exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'id' } },
        },
      ],
      contexts: [{ name: 'x', context: { cluster: 'x', user: 'x' } }],
      'current-context': 'x',
    });
    await secret('exec-kubeconfig', text);
    await cluster('exec', { kubeconfigSecretRef: { name: 'exec-kubeconfig' } });
    const { ready } = await readyWith('exec', 'InvalidKubeconfig');
    assert.equal(ready.status, 'False');
    assert.match(
      ready.message,
      /^kubeconfig in Secret fleet\/exec-kubeconfig key "kubeconfig": users\[0\] "x" sets exec,/,
    );
    assert.doesNotMatch(ready.message, new RegExp(token));
  });

  it('marks a paused Cluster Ready=False Paused and does not probe it', async () => {
    await cluster('paused', { kubeconfigSecretRef: { name: 'second-kubeconfig' }, paused: true });
    const { cluster: c, ready } = await readyWith('paused', 'Paused');
    assert.equal(ready.status, 'False');
    assert.equal(c.status?.serverVersion, undefined);
    assert.ok(probes.filter((p) => p.key === `${NS}/paused`).every((p) => p.result.kind === 'paused'));
    // Unpausing resumes probing.
    await cluster('paused', { kubeconfigSecretRef: { name: 'second-kubeconfig' }, paused: false });
    const resumed = await readyWith('paused', 'Reachable');
    assert.equal(resumed.cluster.status?.serverVersion, secondVersion);
  });
});
