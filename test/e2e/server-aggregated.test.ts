// The HTTP API behind the real aggregation layer: kube-apiserver authenticates ServiceAccount
// tokens, authorizes the URL's attributes with RBAC and proxies to convoy's server with its
// front-proxy client cert and X-Remote-* headers; convoy takes the user from those headers and
// asks SubjectAccessReview again. Both layers check the same attributes against the same RBAC,
// so which layer answered is told apart by the wording of the 403 (kube-apiserver: `User "…"
// cannot create resource "releases/sync" …`; convoy: `user "…" cannot create releases/sync …`),
// and convoy's own 403 is reached by running it with less trust than kube-apiserver has.
import assert from 'node:assert/strict';
import { execFile as execFileCb } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Registry } from 'prom-client';
import { ANNOTATION_SYNC_REQUESTED_AT, API_VERSION } from '../../src/api/constants.ts';
import type { Release } from '../../src/api/types.ts';
import { applyObject } from '../../src/kube/apply.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { newLogger } from '../../src/runtime/log.ts';
import type { RequestHeaderConfig } from '../../src/server/credentials.ts';
import {
  type ApiServer,
  AUTH_CONFIGMAP,
  loadRequestHeaderConfig,
  newApiMetrics,
  startApiServer,
} from '../../src/server/index.ts';
import {
  type CallOptions,
  type CallResult,
  httpsCall,
  makeTestCa,
  type TestCa,
} from '../../src/server/testsupport.ts';
import { selfSignedCert } from '../../src/server/tls.ts';
import { parseCaBundle } from '../../src/server/trust.ts';
import { ensureBinaries } from '../../src/testenv/build.ts';
import { type ControlPlane, registerApiService, startControlPlane } from '../../src/testenv/index.ts';
import { installCrds } from '../support/crds.ts';
import { bindRole, waitForAccess } from '../support/rbac.ts';
import { waitFor } from '../support/wait.ts';

const execFile = promisify(execFileCb);

const NS = 'agg-e2e';
// ServiceAccounts of this namespace get access only through a binding to its group.
const GROUP_NS = 'agg-e2e-group';
const API = 'api.convoy.kumodo.io';
const BASE = `/apis/${API}/v1alpha1/namespaces/${NS}/releases`;
// The serving cert must name the Service the APIService points at: the aggregator checks it.
const SERVING_HOSTS = ['127.0.0.1', 'localhost', 'convoy-api.convoy-system.svc'];

let cp: ControlPlane;
let client: KubeClient;
let requestHeader: RequestHeaderConfig;
/** One serving cert for every start of convoy's server: the APIService's caBundle trusts it. */
let tls: { readonly kind: 'files'; readonly certFile: string; readonly keyFile: string };
let server: ApiServer;
const tokens: Record<string, string> = {};

const sa = (ns: string, name: string) => `system:serviceaccount:${ns}:${name}`;
/** A call to kube-apiserver (never to convoy's port directly). */
const viaKube = (method: string, path: string, opts: CallOptions = {}): Promise<CallResult> =>
  httpsCall(cp.server, cp.caPem, method, path, opts);

const kubeForbidden = (user: string, verb: string, sub: string, release: string) =>
  new RegExp(
    `^releases\\.api\\.convoy\\.kumodo\\.io "${release}" is forbidden: User "${user}" cannot ${verb} resource "releases/${sub}" in API group "api\\.convoy\\.kumodo\\.io" in the namespace "${NS}"`,
  );
const convoyForbidden = (user: string, verb: string, sub: string) =>
  new RegExp(`^user "${user}" cannot ${verb} releases/${sub} in namespace "${NS}"`);

async function serviceAccountToken(ns: string, name: string): Promise<string> {
  await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns } });
  const tr = await client.request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  return tr.status.token;
}

/** A Role in NS allowing `verb` on releases/`sub` of the API group, bound to `subject`; waits until RBAC enforces it. */
async function grant(
  name: string,
  subject: { kind: 'ServiceAccount'; namespace: string; name: string } | { kind: 'Group'; name: string },
  verb: 'create' | 'get',
  sub: string,
  probe: { user: string; groups: string[] },
): Promise<void> {
  await bindRole(
    client,
    NS,
    name,
    [{ apiGroups: [API], resources: [`releases/${sub}`], verbs: [verb] }],
    [subject],
  );
  // RBAC reads bindings through an informer; both layers must see this one before a request.
  await waitForAccess(client, `RBAC allows ${probe.user} ${verb} releases/${sub}`, {
    user: probe.user,
    groups: probe.groups,
    resourceAttributes: { namespace: NS, verb, group: API, resource: 'releases', subresource: sub },
  });
}

const startConvoy = (rh: RequestHeaderConfig, port?: number) =>
  startApiServer({
    kubeConfig: cp.kubeConfig,
    tls,
    requestHeader: rh,
    ...(port === undefined ? {} : { port }),
  });

/**
 * Replaces convoy's server by one with other requestheader settings on the same port (so the
 * APIService stays as registered) and returns the first answer kube-apiserver gets from it:
 * until the aggregator has dialed the new server it answers 503 itself.
 */
async function restartConvoyAndCall(
  rh: RequestHeaderConfig,
  method: string,
  path: string,
  opts: CallOptions,
): Promise<CallResult> {
  const port = server.port;
  await server.close();
  server = await startConvoy(rh, port);
  return waitFor(`an answer from the restarted server through kube-apiserver`, async () => {
    const r = await viaKube(method, path, opts);
    return r.status !== 503 && r;
  });
}

before(async () => {
  cp = await startControlPlane({ aggregation: true });
  client = new KubeClient(cp.kubeConfig);
  await installCrds(cp.kubeConfig);
  for (const ns of [NS, GROUP_NS]) {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  }
  // What an aggregated apiserver does at start: read the front-proxy settings the cluster published.
  const rh = await loadRequestHeaderConfig(cp.kubeConfig);
  assert.ok(rh, 'kube-apiserver published a requestheader-client-ca-file');
  requestHeader = rh;
  const serving = await selfSignedCert(SERVING_HOSTS, 1);
  tls = { kind: 'files', certFile: join(cp.dir, 'convoy-api.crt'), keyFile: join(cp.dir, 'convoy-api.key') };
  await writeFile(tls.certFile, serving.cert);
  await writeFile(tls.keyFile, serving.key, { mode: 0o600 });
  server = await startConvoy(requestHeader);
  await registerApiService(cp.kubeConfig, { port: server.port, caPem: server.cert });

  for (const name of ['nobody', 'syncer', 'reader', 'spoofer'])
    tokens[name] = await serviceAccountToken(NS, name);
  tokens.member = await serviceAccountToken(GROUP_NS, 'member');
  const saGroups = (ns: string) => ['system:serviceaccounts', `system:serviceaccounts:${ns}`];
  await grant('syncer', { kind: 'ServiceAccount', namespace: NS, name: 'syncer' }, 'create', 'sync', {
    user: sa(NS, 'syncer'),
    groups: saGroups(NS),
  });
  await grant('reader', { kind: 'ServiceAccount', namespace: NS, name: 'reader' }, 'get', 'health', {
    user: sa(NS, 'reader'),
    groups: saGroups(NS),
  });
  await grant(
    'group-reader',
    { kind: 'Group', name: `system:serviceaccounts:${GROUP_NS}` },
    'get',
    'health',
    {
      user: sa(GROUP_NS, 'member'),
      groups: saGroups(GROUP_NS),
    },
  );

  const release: Release = {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name: 'web', namespace: NS },
    spec: {
      source: { inline: { manifests: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n' } },
      syncPolicy: { mode: 'Auto' },
    },
  };
  await client.create(release);
});

after(async () => {
  await server?.close();
  await cp?.stop();
});

const syncAnnotation = async (): Promise<string | undefined> =>
  (await client.get<Release>({ apiVersion: API_VERSION, kind: 'Release', namespace: NS, name: 'web' }))
    ?.metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_AT];

describe('the control plane with aggregation', () => {
  test('publishes its front-proxy CA and the header names in extension-apiserver-authentication', () => {
    assert.equal(requestHeader.clientCA.trim(), cp.frontProxyCaPem?.trim());
    assert.deepEqual(requestHeader.allowedNames, ['front-proxy-client']);
    assert.deepEqual(requestHeader.usernameHeaders, ['X-Remote-User']);
    assert.deepEqual(requestHeader.groupHeaders, ['X-Remote-Group']);
    assert.deepEqual(requestHeader.extraHeaderPrefixes, ['X-Remote-Extra-']);
  });

  test('kubectl get --raw lists the API resources through kube-apiserver', async () => {
    const kubectl = join(await ensureBinaries(), 'kubectl');
    const { stdout } = await execFile(kubectl, [
      `--kubeconfig=${cp.kubeconfigPath}`,
      `--cache-dir=${join(cp.dir, 'kubectl-cache')}`,
      'get',
      '--raw',
      `/apis/${API}/v1alpha1`,
    ]);
    const list = JSON.parse(stdout) as { kind: string; groupVersion: string; resources: { name: string }[] };
    assert.equal(list.kind, 'APIResourceList');
    assert.equal(list.groupVersion, `${API}/v1alpha1`);
    assert.deepEqual(
      list.resources.map((r) => r.name),
      ['releases/sync', 'releases/health', 'releases/history', 'releases/renders'],
    );
  });
});

describe('kube-apiserver layer', () => {
  test('a ServiceAccount without RBAC gets 403 from kube-apiserver; nothing is written', async () => {
    const r = await viaKube('POST', `${BASE}/web/sync`, { token: tokens.nobody, body: {} });
    assert.equal(r.status, 403, JSON.stringify(r.body));
    assert.equal(r.body.kind, 'Status');
    assert.match(r.body.message, kubeForbidden(sa(NS, 'nobody'), 'create', 'sync', 'web'));
    assert.doesNotMatch(r.body.message, /^user "/);
    assert.equal(await syncAnnotation(), undefined);
  });

  test('sync permission does not open health: kube-apiserver refuses before proxying', async () => {
    const r = await viaKube('GET', `${BASE}/web/health`, { token: tokens.syncer });
    assert.equal(r.status, 403, JSON.stringify(r.body));
    assert.match(r.body.message, kubeForbidden(sa(NS, 'syncer'), 'get', 'health', 'web'));
  });
});

describe('through to convoy', () => {
  test('create releases/sync: 200 from convoy and sync-requested-at is set', async () => {
    const r = await viaKube('POST', `${BASE}/web/sync`, { token: tokens.syncer, body: {} });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.kind, 'ReleaseSync');
    assert.deepEqual(r.body.metadata, { namespace: NS, name: 'web' });
    assert.ok(r.body.syncRequestedAt);
    assert.equal(await syncAnnotation(), r.body.syncRequestedAt);
  });

  test('get releases/health: 200 ReleaseHealth', async () => {
    const r = await viaKube('GET', `${BASE}/web/health`, { token: tokens.reader });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.kind, 'ReleaseHealth');
    assert.deepEqual(r.body.metadata, { namespace: NS, name: 'web' });
  });

  test('a grant to the ServiceAccounts group works: convoy reads the groups from X-Remote-Group', async () => {
    const r = await viaKube('GET', `${BASE}/web/health`, { token: tokens.member });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  });

  test('X-Remote-* headers a client sends do not reach convoy: it sees the token holder', async () => {
    // Were the client's header believed, convoy would ask about "nobody" and refuse.
    const r = await viaKube('GET', `${BASE}/web/health`, {
      token: tokens.reader,
      headers: { 'X-Remote-User': sa(NS, 'nobody'), 'X-Remote-Group': 'system:unauthenticated' },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  });

  test('kubectl create --raw …/sync (the docs example) with the admin kubeconfig', async () => {
    const before = await syncAnnotation();
    const kubectl = join(await ensureBinaries(), 'kubectl');
    const body = join(cp.dir, 'sync-body.json');
    await writeFile(body, '{}');
    const { stdout } = await execFile(kubectl, [
      `--kubeconfig=${cp.kubeconfigPath}`,
      `--cache-dir=${join(cp.dir, 'kubectl-cache')}`,
      'create',
      '--raw',
      `${BASE}/web/sync`,
      '-f',
      body,
    ]);
    const sync = JSON.parse(stdout) as { kind: string; syncRequestedAt: string };
    assert.equal(sync.kind, 'ReleaseSync');
    assert.notEqual(sync.syncRequestedAt, before);
    assert.equal(await syncAnnotation(), sync.syncRequestedAt);
  });
});

// Last: these restart convoy's server with less trust than the cluster publishes.
describe('convoy layer: its identity comes from the front proxy', () => {
  test('ignoring X-Remote-Group, convoy itself refuses the group member, naming the ServiceAccount', async () => {
    // kube-apiserver still allows (the member is in the bound group); convoy now sees only the user.
    const r = await restartConvoyAndCall(
      { ...requestHeader, groupHeaders: [] },
      'GET',
      `${BASE}/web/health`,
      {
        token: tokens.member,
      },
    );
    assert.equal(r.status, 403, JSON.stringify(r.body));
    assert.match(r.body.message, convoyForbidden(sa(GROUP_NS, 'member'), 'get', 'health'));
    // A user allowed by name is still served by the same server.
    const reader = await viaKube('GET', `${BASE}/web/health`, { token: tokens.reader });
    assert.equal(reader.status, 200, JSON.stringify(reader.body));
  });

  test("not trusting kube-apiserver's proxy cert name, convoy finds no credentials at all: 401", async () => {
    // kube-apiserver authenticates the token but does not forward it; the headers are all convoy gets.
    const r = await restartConvoyAndCall(
      { ...requestHeader, allowedNames: ['some-other-proxy'] },
      'GET',
      `${BASE}/web/health`,
      { token: tokens.reader },
    );
    assert.equal(r.status, 401, JSON.stringify(r.body));
    assert.match(r.body.message, /no credentials/);
  });
});

// A second convoy server that follows kube-system/extension-apiserver-authentication while it runs,
// called directly with front-proxy client certs from CAs this test publishes there. kube-apiserver's
// cluster-authentication-trust controller rewrites that ConfigMap as the union of what it holds and the
// apiserver's own front-proxy CA, so its CA stays in every bundle and a CA dropped from the ConfigMap
// stays dropped.
describe('front-proxy CA rotation, followed from extension-apiserver-authentication', () => {
  let oldCa: TestCa;
  let newCa: TestCa;
  let oldProxy: { cert: string; key: string };
  let newProxy: { cert: string; key: string };
  let follower: ApiServer;
  const registry = new Registry();
  const metrics = newApiMetrics(registry);
  const logs: { level: number; msg: string; [k: string]: unknown }[] = [];
  const log = newLogger('api-ca-rotation-test', {
    write: (line: string) => void logs.push(JSON.parse(line)),
  });
  const sha256 = (pem: string) => new X509Certificate(pem).fingerprint256;

  const publishCa = (bundle: string) =>
    applyObject(
      client,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { ...AUTH_CONFIGMAP },
        data: { 'requestheader-client-ca-file': bundle },
      },
      { fieldManager: 'convoy-e2e', force: true },
    );
  /** The CAs the ConfigMap names once kube-apiserver's controller has merged its own back in. */
  const published = async (want: { has: string[]; lacks: string[] }) => {
    const rh = await loadRequestHeaderConfig(cp.kubeConfig);
    const fps = parseCaBundle(rh?.clientCA ?? '').map((c) => c.fingerprint256);
    return (
      want.has.every((p) => fps.includes(sha256(p))) && want.lacks.every((p) => !fps.includes(sha256(p)))
    );
  };
  /** GET health as the reader ServiceAccount, named by X-Remote-User over a connection with `proxy`'s cert. */
  const asReader = (proxy: { cert: string; key: string }, agent: Agent = new Agent()) =>
    httpsCall(follower.url, follower.cert, 'GET', `${BASE}/web/health`, {
      clientCert: proxy,
      agent,
      headers: { 'X-Remote-User': sa(NS, 'reader'), 'X-Remote-Group': 'system:serviceaccounts' },
    });
  /** Waits until the reader's request through `proxy` is served (`what` names it); returns that answer. */
  const trusted = (what: string, proxy: { cert: string; key: string }) =>
    waitFor(what, async () => {
      const r = await asReader(proxy);
      return r.status === 200 && r;
    });

  before(async () => {
    [oldCa, newCa] = await Promise.all([
      makeTestCa('test-front-proxy-ca-old'),
      makeTestCa('test-front-proxy-ca-new'),
    ]);
    oldProxy = await oldCa.issue('front-proxy-client');
    newProxy = await newCa.issue('front-proxy-client');
    const apiserverCa = cp.frontProxyCaPem;
    assert.ok(apiserverCa);
    await publishCa(`${apiserverCa}${oldCa.cert}`);
    await waitFor('the ConfigMap names the old test CA next to the apiserver CA', () =>
      published({ has: [apiserverCa, oldCa.cert], lacks: [newCa.cert] }),
    );
    follower = await startApiServer({
      kubeConfig: cp.kubeConfig,
      tls,
      followClusterRequestHeader: { intervalMs: 200 },
      log,
      metrics,
    });
  });

  after(async () => {
    await follower?.close();
    await oldCa?.dispose();
    await newCa?.dispose();
  });

  test('the published CA is trusted from the first read; a proxy certificate from another CA is not', async () => {
    const ok = await trusted('the old CA trusted', oldProxy);
    assert.equal(ok.body.kind, 'ReleaseHealth');
    const stranger = await asReader(newProxy);
    assert.equal(stranger.status, 401, JSON.stringify(stranger.body));
    assert.match(stranger.body.message, /no credentials/);
  });

  test('rotated in the ConfigMap: the new CA is trusted, the old one refused, also on open keep-alive connections', async () => {
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    const keepAliveNew = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await trusted('the old CA trusted', oldProxy);
      // Opened now, its handshake verifies the proxy certificate against the old CA.
      const opened = await asReader(oldProxy, keepAlive);
      assert.equal(opened.status, 200, JSON.stringify(opened.body));
      assert.equal(opened.reusedSocket, false);
      // The proxy with the new CA connects before this server has seen it: refused on that connection, for now.
      const early = await asReader(newProxy, keepAliveNew);
      assert.equal(early.status, 401, JSON.stringify(early.body));

      const apiserverCa = cp.frontProxyCaPem ?? '';
      await publishCa(`${apiserverCa}${newCa.cert}`);
      await waitFor('the ConfigMap names the new test CA and no longer the old one', () =>
        published({ has: [apiserverCa, newCa.cert], lacks: [oldCa.cert] }),
      );
      const ok = await trusted('the new CA trusted without a restart', newProxy);
      assert.equal(ok.body.kind, 'ReleaseHealth');

      const refused = await asReader(oldProxy);
      assert.equal(refused.status, 401, JSON.stringify(refused.body));
      assert.equal(refused.reusedSocket, false);
      // Its handshake was checked against the old CA; the headers on it are not believed any more.
      const stale = await asReader(oldProxy, keepAlive);
      assert.equal(stale.reusedSocket, true);
      assert.equal(stale.status, 401, JSON.stringify(stale.body));

      // ...and the connection it opened before the rotation is believed now, without reconnecting.
      const late = await asReader(newProxy, keepAliveNew);
      assert.equal(late.reusedSocket, true);
      assert.equal(late.status, 200, JSON.stringify(late.body));

      const reload = logs.findLast((l) => /front-proxy settings reloaded/.test(l.msg));
      assert.ok(reload, 'the reload is logged');
      assert.deepEqual(reload.caSha256, [sha256(apiserverCa), sha256(newCa.cert)]);
      const applied = (await metrics.reloads.get()).values.find(
        (v) => v.labels.source === 'requestheader' && v.labels.result === 'applied',
      );
      assert.ok((applied?.value ?? 0) >= 2, `reloads applied: ${applied?.value}`);
    } finally {
      keepAlive.destroy();
      keepAliveNew.destroy();
    }
  });
});
