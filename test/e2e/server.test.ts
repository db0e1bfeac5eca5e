// The HTTP API against a real kube-apiserver: delegated authentication (TokenReview of TokenRequest
// tokens, and the requestheader front-proxy identity), SubjectAccessReview against RBAC, the /sync
// annotations written with Server-Side Apply under convoy-api, and health/history/renders read back
// from what the inventory, the Release status and the render store hold.

import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect } from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { parseAllDocuments } from 'yaml';
import {
  ANNOTATION_APPROVED_RENDER,
  ANNOTATION_FORCE_SYNC_AT,
  ANNOTATION_SYNC_REQUESTED_AT,
  API_VERSION,
  FIELD_MANAGERS,
} from '../../src/api/constants.ts';
import type { KubeObject, Release } from '../../src/api/types.ts';
import { applyObject } from '../../src/kube/apply.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { renderRef as renderRefOf } from '../../src/render/canonical.ts';
import { newLogger } from '../../src/runtime/log.ts';
import { DEFAULT_REQUEST_HEADERS } from '../../src/server/credentials.ts';
import {
  type ApiServer,
  loadRequestHeaderConfig,
  newApiMetrics,
  selfSignedCert,
  startApiServer,
} from '../../src/server/index.ts';
import { type CallOptions, httpsCall, makeTestCa, type TestCa } from '../../src/server/testsupport.ts';
import { SecretRenderStore } from '../../src/store/secrets.ts';
import type { Render } from '../../src/store/types.ts';
import { type ControlPlane, startControlPlane } from '../../src/testenv/index.ts';
import { installCrds } from '../support/crds.ts';
import { apiserverMetric } from '../support/metrics.ts';
import { bindRole, serviceAccountToken, waitForAccess } from '../support/rbac.ts';
import { applyControllerInventory, applyInventoryAs } from '../support/release.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'api-e2e';
const BASE = `/apis/api.convoy.kumodo.io/v1alpha1/namespaces/${NS}/releases`;
const T = '2030-01-01T00:00:00Z';

let cp: ControlPlane;
let client: KubeClient;
let store: SecretRenderStore;
let server: ApiServer;
const tokens: Record<string, string> = {};

const saUser = (sa: string) => `system:serviceaccount:${NS}:${sa}`;
const call = (method: string, path: string, opts: CallOptions = {}) =>
  httpsCall(server.url, server.cert, method, path, opts);

function renderOf(tag: string): Render {
  return {
    hooks: [],
    objects: [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cfg-${tag}`, namespace: NS }, data: { tag } },
    ],
  };
}
const RENDER_OLD = renderOf('old');
const RENDER_NEW = renderOf('new');
const REF_OLD = renderRefOf(RENDER_OLD);
const REF_NEW = renderRefOf(RENDER_NEW);
const REF_NEVER_STORED = `sha256:${'0'.repeat(64)}`;
const RENDER_SECRET = {
  hooks: [],
  objects: [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: NS },
      data: { password: 'aHVudGVyMg==' },
    },
  ],
};
const REF_SECRET = renderRefOf(RENDER_SECRET);

async function createRelease(
  name: string,
  mode: 'Auto' | 'Manual',
  status?: Release['status'],
): Promise<void> {
  const release: Release = {
    apiVersion: API_VERSION,
    kind: 'Release',
    metadata: { name, namespace: NS },
    spec: {
      source: { inline: { manifests: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n' } },
      syncPolicy: { mode },
    },
  };
  await client.create(release);
  if (status !== undefined) {
    await applyObject(
      client,
      { ...release, status },
      { fieldManager: 'convoy-controller', subresource: 'status', force: true },
    );
  }
}

async function getRelease(name: string): Promise<Release> {
  const r = await client.get<Release>({ apiVersion: API_VERSION, kind: 'Release', namespace: NS, name });
  assert.ok(r, `release ${name} exists`);
  return r;
}

/** A Role with these subresource rules in `group`, bound to `subject`; waits until RBAC enforces it. */
async function grant(
  name: string,
  subject: { kind: 'ServiceAccount' | 'User'; name: string },
  rules: { group: string; verbs: string[]; resources: string[] }[],
): Promise<void> {
  await bindRole(
    client,
    NS,
    name,
    rules.map((r) => ({ apiGroups: [r.group], resources: r.resources, verbs: r.verbs })),
    [
      subject.kind === 'User'
        ? { kind: 'User', name: subject.name }
        : { kind: 'ServiceAccount', name: subject.name, namespace: NS },
    ],
  );
  const user = subject.kind === 'User' ? subject.name : saUser(subject.name);
  const first = rules[0];
  assert.ok(first);
  const [resource, subresource] = (first.resources[0] ?? '').split('/');
  // The RBAC authorizer reads bindings through an informer: wait until it sees this one, so the
  // server's short decision cache never holds a denial from before.
  await waitForAccess(client, `RBAC allows ${user} ${first.verbs[0]} ${first.resources[0]}`, {
    user,
    groups: subject.kind === 'User' ? [] : ['system:serviceaccounts', `system:serviceaccounts:${NS}`],
    resourceAttributes: { namespace: NS, verb: first.verbs[0], group: first.group, resource, subresource },
  });
}

async function newServiceAccountToken(sa: string): Promise<string> {
  await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: NS } });
  return serviceAccountToken(client, NS, sa);
}

const API = 'api.convoy.kumodo.io';

before(async () => {
  cp = await startControlPlane({});
  client = new KubeClient(cp.kubeConfig);
  store = new SecretRenderStore(client);
  await installCrds(cp.kubeConfig);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  server = await startApiServer({ kubeConfig: cp.kubeConfig, tls: { kind: 'selfSigned' } });

  for (const sa of ['nobody', 'syncer', 'reader', 'crdgroup', 'secrets-reader'])
    tokens[sa] = await newServiceAccountToken(sa);
  await grant('secrets-reader', { kind: 'ServiceAccount', name: 'secrets-reader' }, [
    { group: API, verbs: ['get'], resources: ['releases/renders'] },
    { group: '', verbs: ['get'], resources: ['secrets'] },
  ]);
  await grant('syncer', { kind: 'ServiceAccount', name: 'syncer' }, [
    { group: API, verbs: ['create'], resources: ['releases/sync'] },
  ]);
  await grant('reader', { kind: 'ServiceAccount', name: 'reader' }, [
    { group: API, verbs: ['get'], resources: ['releases/health', 'releases/history', 'releases/renders'] },
  ]);
  // The CRDs' group is not the API's: a rule there must not open /sync.
  await grant('crdgroup', { kind: 'ServiceAccount', name: 'crdgroup' }, [
    { group: 'convoy.kumodo.io', verbs: ['create', 'get'], resources: ['releases/sync', 'releases/health'] },
  ]);

  await createRelease('auto', 'Auto');
  await createRelease('manual', 'Manual', { currentRender: { renderRef: REF_NEW, revision: 'rev-new' } });
  await createRelease('manual-unrendered', 'Manual');
  await createRelease('observed', 'Auto', {
    conditions: [
      {
        type: 'Healthy',
        status: 'False',
        reason: 'Degraded',
        message: '1 object degraded',
        lastTransitionTime: T,
      },
    ],
    lastAttempted: { renderRef: REF_NEW, revision: 'rev-new', time: T, applied: true },
    history: [
      { renderRef: REF_OLD, revision: 'rev-old', appliedAt: T },
      { renderRef: REF_NEW, revision: 'rev-new', appliedAt: '2030-01-01T00:01:00Z' },
      { renderRef: REF_NEVER_STORED, revision: 'rev-gone', appliedAt: '2030-01-01T00:02:00Z' },
    ],
  });
});

after(async () => {
  await server?.close();
  await cp?.stop();
});

describe('discovery and healthz (public)', () => {
  test('healthz', async () => {
    const r = await call('GET', '/healthz');
    assert.equal(r.status, 200);
    assert.equal(r.body, 'ok');
  });

  test('APIGroupList, APIGroup and APIResourceList', async () => {
    const list = await call('GET', '/apis');
    assert.equal(list.status, 200);
    assert.equal(list.body.kind, 'APIGroupList');
    assert.deepEqual(list.body.groups[0].preferredVersion, {
      groupVersion: 'api.convoy.kumodo.io/v1alpha1',
      version: 'v1alpha1',
    });
    const group = await call('GET', '/apis/api.convoy.kumodo.io');
    assert.equal(group.body.kind, 'APIGroup');
    assert.equal(group.body.name, API);
    const resources = await call('GET', '/apis/api.convoy.kumodo.io/v1alpha1');
    assert.equal(resources.body.kind, 'APIResourceList');
    assert.deepEqual(
      resources.body.resources.map(
        (r: { name: string; verbs: string[] }) => `${r.name}:${r.verbs.join(',')}`,
      ),
      ['releases/sync:create', 'releases/health:get', 'releases/history:get', 'releases/renders:get'],
    );
  });
});

describe('authentication', () => {
  test('no token → 401 Status', async () => {
    const r = await call('POST', `${BASE}/auto/sync`, { body: {} });
    assert.equal(r.status, 401);
    assert.equal(r.body.kind, 'Status');
    assert.equal(r.body.reason, 'Unauthorized');
    assert.match(r.body.message, /no credentials/);
  });

  test('a token the apiserver does not know → 401', async () => {
    const r = await call('GET', `${BASE}/auto/health`, { token: 'not-a-real-token' });
    assert.equal(r.status, 401);
    assert.match(r.body.message, /invalid bearer token/);
  });

  test('a malformed Authorization header → 401', async () => {
    const r = await call('GET', `${BASE}/auto/health`, { headers: { Authorization: 'Basic dTpw' } });
    assert.equal(r.status, 401);
    assert.match(r.body.message, /Bearer <token>/);
  });

  test('X-Remote-User without a front-proxy certificate is ignored', async () => {
    const r = await call('GET', `${BASE}/auto/health`, { headers: { 'X-Remote-User': 'system:admin' } });
    assert.equal(r.status, 401);
  });
});

describe('authorization', () => {
  test('no permission → 403 naming the missing permission', async () => {
    const r = await call('POST', `${BASE}/auto/sync`, { token: tokens.nobody, body: {} });
    assert.equal(r.status, 403);
    assert.equal(r.body.reason, 'Forbidden');
    assert.match(
      r.body.message,
      new RegExp(
        `^user "${saUser('nobody')}" cannot create releases/sync in namespace "${NS}" \\(API group "api\\.convoy\\.kumodo\\.io", release "auto"\\)`,
      ),
    );
    const h = await call('GET', `${BASE}/auto/health`, { token: tokens.nobody });
    assert.equal(h.status, 403);
    assert.match(h.body.message, /cannot get releases\/health in namespace "api-e2e"/);
  });

  test('a rule in the CRD group convoy.kumodo.io does not grant the API group', async () => {
    const r = await call('POST', `${BASE}/auto/sync`, { token: tokens.crdgroup, body: {} });
    assert.equal(r.status, 403);
    assert.match(r.body.message, /cannot create releases\/sync/);
  });

  test('sync permission does not grant reading renders, and reading does not grant sync', async () => {
    const r = await call('GET', `${BASE}/observed/renders/${REF_OLD}`, { token: tokens.syncer });
    assert.equal(r.status, 403);
    assert.match(r.body.message, /cannot get releases\/renders/);
    const s = await call('POST', `${BASE}/auto/sync`, { token: tokens.reader, body: {} });
    assert.equal(s.status, 403);
  });

  test('the 403 comes before the 404: no probing for release names', async () => {
    const r = await call('GET', `${BASE}/no-such-release/health`, { token: tokens.nobody });
    assert.equal(r.status, 403);
  });
});

/** kube-apiserver's count of SubjectAccessReviews created so far. */
const accessReviews = () =>
  apiserverMetric(client, 'apiserver_request_total', { resource: 'subjectaccessreviews' });

describe('authorization by namespace first', () => {
  test('a namespace-wide grant is reviewed once for every Release of the namespace', async () => {
    const token = await newServiceAccountToken('ns-syncer');
    await grant('ns-syncer', { kind: 'ServiceAccount', name: 'ns-syncer' }, [
      { group: API, verbs: ['create'], resources: ['releases/sync'] },
    ]);
    const before = await accessReviews();
    for (const name of ['auto', 'manual', 'observed']) {
      const r = await call('POST', `${BASE}/${name}/sync`, { token, body: {} });
      assert.equal(r.status, 200, `${name}: ${JSON.stringify(r.body)}`);
    }
    assert.equal((await accessReviews()) - before, 1, 'one review answers the three Releases');
  });

  test('a grant by resourceNames opens its Release and no other', async () => {
    const token = await newServiceAccountToken('one-syncer');
    await client.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'one-syncer', namespace: NS },
      rules: [{ apiGroups: [API], resources: ['releases/sync'], verbs: ['create'], resourceNames: ['auto'] }],
    } as never);
    await client.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'one-syncer', namespace: NS },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'one-syncer' },
      subjects: [{ kind: 'ServiceAccount', name: 'one-syncer', namespace: NS }],
    } as never);
    await waitForAccess(client, 'RBAC allows one-syncer to sync auto', {
      user: saUser('one-syncer'),
      groups: ['system:serviceaccounts', `system:serviceaccounts:${NS}`],
      resourceAttributes: {
        namespace: NS,
        verb: 'create',
        group: API,
        resource: 'releases',
        subresource: 'sync',
        name: 'auto',
      },
    });
    const allowed = await call('POST', `${BASE}/auto/sync`, { token, body: {} });
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
    const denied = await call('POST', `${BASE}/manual/sync`, { token, body: {} });
    assert.equal(denied.status, 403);
    assert.match(denied.body.message, /cannot create releases\/sync .*release "manual"/);
  });
});

describe('POST sync', () => {
  test('sets sync-requested-at with Server-Side Apply under convoy-api', async () => {
    const before = Date.now();
    const r = await call('POST', `${BASE}/auto/sync`, { token: tokens.syncer, body: {} });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.kind, 'ReleaseSync');
    const at = r.body.syncRequestedAt as string;
    assert.ok(Date.parse(at) >= before - 1000, at);
    assert.equal(r.body.approvedRender, undefined);
    assert.equal(r.body.forceSyncAt, undefined);
    const rel = await getRelease('auto');
    assert.equal(rel.metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_AT], at);
    const mine = rel.metadata.managedFields?.filter((m) => m.manager === 'convoy-api') ?? [];
    assert.equal(mine.length, 1);
    assert.equal(mine[0]?.operation, 'Apply');
    const fields = (mine[0]?.fieldsV1 ?? {}) as {
      'f:metadata'?: { 'f:annotations'?: Record<string, unknown> };
    };
    const owned = fields['f:metadata']?.['f:annotations'];
    assert.ok(owned && `f:${ANNOTATION_SYNC_REQUESTED_AT}` in owned, JSON.stringify(mine[0]?.fieldsV1));
  });

  test('an empty body counts as {}; each sync moves sync-requested-at forward', async () => {
    const a = await call('POST', `${BASE}/auto/sync`, { token: tokens.syncer });
    const b = await call('POST', `${BASE}/auto/sync`, { token: tokens.syncer, body: '' });
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.ok(
      b.body.syncRequestedAt > a.body.syncRequestedAt,
      `${b.body.syncRequestedAt} > ${a.body.syncRequestedAt}`,
    );
    const rel = await getRelease('auto');
    assert.equal(rel.metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_AT], b.body.syncRequestedAt);
  });

  test('force sets force-sync-at, and a later plain sync keeps it', async () => {
    const f = await call('POST', `${BASE}/auto/sync`, { token: tokens.syncer, body: { force: true } });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    assert.ok(f.body.forceSyncAt);
    assert.equal(
      (await getRelease('auto')).metadata.annotations?.[ANNOTATION_FORCE_SYNC_AT],
      f.body.forceSyncAt,
    );
    const p = await call('POST', `${BASE}/auto/sync`, { token: tokens.syncer, body: {} });
    assert.equal(p.status, 200);
    const ann = (await getRelease('auto')).metadata.annotations ?? {};
    assert.equal(ann[ANNOTATION_FORCE_SYNC_AT], f.body.forceSyncAt, 'the pending forced sync survives');
    assert.equal(ann[ANNOTATION_SYNC_REQUESTED_AT], p.body.syncRequestedAt);
  });

  test('approve sets approved-render to the current render (Manual mode)', async () => {
    const r = await call('POST', `${BASE}/manual/sync`, { token: tokens.syncer, body: { approve: true } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.approvedRender, REF_NEW);
    const ann = (await getRelease('manual')).metadata.annotations ?? {};
    assert.equal(ann[ANNOTATION_APPROVED_RENDER], REF_NEW);
    assert.equal(ann[ANNOTATION_SYNC_REQUESTED_AT], r.body.syncRequestedAt);
    // the observer's plain wake-up must not withdraw the approval
    assert.equal((await call('POST', `${BASE}/manual/sync`, { token: tokens.syncer, body: {} })).status, 200);
    assert.equal((await getRelease('manual')).metadata.annotations?.[ANNOTATION_APPROVED_RENDER], REF_NEW);
  });

  test('approve in Auto mode → 409, nothing written', async () => {
    const before = (await getRelease('observed')).metadata.annotations ?? {};
    const r = await call('POST', `${BASE}/observed/sync`, {
      token: tokens.syncer,
      body: { approve: true, force: true },
    });
    assert.equal(r.status, 409);
    assert.equal(r.body.reason, 'Conflict');
    assert.match(r.body.message, /Auto mode/);
    assert.deepEqual((await getRelease('observed')).metadata.annotations ?? {}, before);
  });

  test('approve before the controller rendered → 409, nothing written', async () => {
    const r = await call('POST', `${BASE}/manual-unrendered/sync`, {
      token: tokens.syncer,
      body: { approve: true },
    });
    assert.equal(r.status, 409);
    assert.match(r.body.message, /no current render yet/);
    assert.equal(
      (await getRelease('manual-unrendered')).metadata.annotations?.[ANNOTATION_SYNC_REQUESTED_AT],
      undefined,
    );
  });

  const badBodies: { name: string; body: string; message: RegExp; field?: string }[] = [
    { name: 'invalid JSON', body: '{"force": tru', message: /not valid JSON/ },
    { name: 'not an object', body: '[true]', message: /must be a JSON object/ },
    { name: 'unknown field', body: '{"aprove": true}', message: /unknown field "aprove"/, field: 'aprove' },
    {
      name: 'wrong type',
      body: '{"force": "yes"}',
      message: /field "force" must be a boolean, got string/,
      field: 'force',
    },
  ];
  for (const c of badBodies) {
    test(`bad body (${c.name}) → 400 naming ${c.field ?? 'the problem'}`, async () => {
      const r = await call('POST', `${BASE}/auto/sync`, { token: tokens.syncer, body: c.body });
      assert.equal(r.status, 400);
      assert.equal(r.body.reason, 'BadRequest');
      assert.match(r.body.message, c.message);
      if (c.field !== undefined) assert.equal(r.body.details.causes[0].field, c.field);
    });
  }

  test('a non-JSON content type → 415', async () => {
    const r = await call('POST', `${BASE}/auto/sync`, {
      token: tokens.syncer,
      body: 'force=true',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(r.status, 415);
  });

  test('unknown release → 404, and no Release is created', async () => {
    const r = await call('POST', `${BASE}/ghost/sync`, { token: tokens.syncer, body: {} });
    assert.equal(r.status, 404);
    assert.equal(r.body.reason, 'NotFound');
    assert.match(r.body.message, /release "ghost" not found in namespace "api-e2e"/);
    assert.equal(
      await client.get({ apiVersion: API_VERSION, kind: 'Release', namespace: NS, name: 'ghost' }),
      undefined,
    );
  });

  test('wrong method → 405 with Allow', async () => {
    const r = await call('GET', `${BASE}/auto/sync`, { token: tokens.syncer });
    assert.equal(r.status, 405);
    assert.equal(r.headers.allow, 'POST');
    assert.equal(r.body.reason, 'MethodNotAllowed');
  });
});

describe('GET health, history, renders', () => {
  // The inventory's two objects: keys as the observer's managers write them, and with the version.
  const webKey = { group: 'apps', kind: 'Deployment', namespace: NS, name: 'web' };
  const cfgKey = { group: '', kind: 'ConfigMap', namespace: NS, name: 'cfg' };
  const web = { ...webKey, version: 'v1', wave: 1, renderRef: REF_NEW };
  const cfg = { ...cfgKey, version: 'v1', wave: 0, renderRef: REF_NEW };
  const webHealth = { state: 'Degraded', message: 'available 0 of 3', assessedRenderRef: REF_NEW } as const;
  const cfgHealth = { state: 'Healthy', assessedRenderRef: REF_NEW } as const;
  before(async () => {
    await applyControllerInventory(client, NS, 'observed', [web, cfg]);
    await applyInventoryAs(FIELD_MANAGERS.healthInventory, client, NS, 'observed', [
      { ...webKey, ...webHealth, firstUnhealthy: T },
      { ...cfgKey, ...cfgHealth },
    ]);
    await store.put(NS, 'observed', REF_OLD, RENDER_OLD, { revision: 'rev-old' });
    await store.put(NS, 'observed', REF_NEW, RENDER_NEW, { revision: 'rev-new' });
    await store.put(NS, 'auto', REF_SECRET, RENDER_SECRET, { revision: 'rev-secret' });
  });

  test('health: the inventory entries, their summary and the Healthy condition', async () => {
    const r = await call('GET', `${BASE}/observed/health`, { token: tokens.reader });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.kind, 'ReleaseHealth');
    assert.equal(r.body.renderRef, REF_NEW);
    assert.deepEqual(r.body.summary, { healthy: 1, progressing: 0, degraded: 1, unknown: 0, total: 2 });
    assert.equal(r.body.healthy.reason, 'Degraded');
    assert.deepEqual(r.body.entries, [
      { ...cfg, ...cfgHealth, message: '' },
      { ...web, ...webHealth, firstUnhealthy: T },
    ]);
  });

  test('health of a Release without an inventory yet: no entries', async () => {
    const r = await call('GET', `${BASE}/auto/health`, { token: tokens.reader });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.entries, []);
    assert.equal(r.body.summary.total, 0);
  });

  test('history: status.history with which renders are still stored', async () => {
    const r = await call('GET', `${BASE}/observed/history`, { token: tokens.reader });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.kind, 'ReleaseHistory');
    assert.deepEqual(
      r.body.history.map((h: { renderRef: string; revision: string; stored: boolean }) => [
        h.revision,
        h.stored,
      ]),
      [
        ['rev-old', true],
        ['rev-new', true],
        ['rev-gone', false],
      ],
    );
    const stored = new Map(
      r.body.stored.map((s: { renderRef: string; revision: string; referencedBy: string[] }) => [
        s.renderRef,
        [s.revision, s.referencedBy],
      ]),
    );
    assert.deepEqual(stored.get(REF_NEW), ['rev-new', ['history', 'lastAttempted']]);
    assert.deepEqual(stored.get(REF_OLD), ['rev-old', ['history']]);
    assert.equal(stored.size, 2);
  });

  test('renders: the stored render', async () => {
    const r = await call('GET', `${BASE}/observed/renders/${REF_OLD}`, { token: tokens.reader });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.kind, 'Render');
    assert.equal(r.body.renderRef, REF_OLD);
    assert.deepEqual({ hooks: r.body.hooks, objects: r.body.objects }, RENDER_OLD);
  });

  test('renders: Secret values masked; showSecrets=true needs get secrets as well', async () => {
    const url = `${BASE}/auto/renders/${REF_SECRET}`;
    const masked = await call('GET', url, { token: tokens.reader });
    assert.equal(masked.status, 200, JSON.stringify(masked.body));
    assert.deepEqual(masked.body.objects[0].data, { password: '***' });
    assert.ok(!JSON.stringify(masked.body).includes('aHVudGVyMg'));
    const denied = await call('GET', `${url}?showSecrets=true`, { token: tokens.reader });
    assert.equal(denied.status, 403);
    assert.match(
      denied.body.message,
      /cannot get secrets in namespace "api-e2e", which showSecrets=true needs/,
    );
    const shown = await call('GET', `${url}?showSecrets=true`, { token: tokens['secrets-reader'] });
    assert.equal(shown.status, 200, JSON.stringify(shown.body));
    assert.deepEqual({ hooks: shown.body.hooks, objects: shown.body.objects }, RENDER_SECRET);
    const plain = await call('GET', url, { token: tokens['secrets-reader'] });
    assert.deepEqual(plain.body.objects[0].data, { password: '***' }, 'masked unless asked');
  });

  test('renders: unknown render → 404; malformed ref → 400; unknown release → 404', async () => {
    const r = await call('GET', `${BASE}/observed/renders/${REF_NEVER_STORED}`, { token: tokens.reader });
    assert.equal(r.status, 404);
    assert.match(r.body.message, /render sha256:0+ of release api-e2e\/observed is not in the render store/);
    const bad = await call('GET', `${BASE}/observed/renders/latest`, { token: tokens.reader });
    assert.equal(bad.status, 400);
    const ghost = await call('GET', `${BASE}/ghost/history`, { token: tokens.reader });
    assert.equal(ghost.status, 404);
    assert.match(ghost.body.message, /release "ghost" not found/);
  });
});

describe('front proxy (requestheader) identity', () => {
  let proxyCa: TestCa;
  let otherCa: TestCa;
  let proxied: ApiServer;
  let proxyClient: { cert: string; key: string };

  before(async () => {
    proxyCa = await makeTestCa('test-front-proxy-ca');
    otherCa = await makeTestCa('test-other-ca');
    proxyClient = await proxyCa.issue('front-proxy-client');
    proxied = await startApiServer({
      kubeConfig: cp.kubeConfig,
      tls: { kind: 'selfSigned' },
      requestHeader: {
        clientCA: proxyCa.cert,
        allowedNames: ['front-proxy-client'],
        ...DEFAULT_REQUEST_HEADERS,
      },
    });
    await grant('alice', { kind: 'User', name: 'alice' }, [
      { group: API, verbs: ['get'], resources: ['releases/health'] },
    ]);
  });

  after(async () => {
    await proxied?.close();
    await proxyCa?.dispose();
    await otherCa?.dispose();
  });

  const viaProxy = (opts: CallOptions) =>
    httpsCall(proxied.url, proxied.cert, 'GET', `${BASE}/observed/health`, opts);

  test('a trusted proxy certificate with X-Remote-User: the named user is authorized', async () => {
    const r = await viaProxy({
      clientCert: proxyClient,
      headers: { 'X-Remote-User': 'alice', 'X-Remote-Group': 'devs' },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.kind, 'ReleaseHealth');
  });

  test('the named user without permission → 403 naming that user', async () => {
    const r = await viaProxy({ clientCert: proxyClient, headers: { 'X-Remote-User': 'bob' } });
    assert.equal(r.status, 403);
    assert.match(r.body.message, /^user "bob" cannot get releases\/health/);
  });

  test('a certificate from another CA, or with a name not allowed: headers ignored → 401', async () => {
    const stranger = await otherCa.issue('front-proxy-client');
    const a = await viaProxy({ clientCert: stranger, headers: { 'X-Remote-User': 'alice' } });
    assert.equal(a.status, 401);
    const wrongName = await proxyCa.issue('not-the-proxy');
    const b = await viaProxy({ clientCert: wrongName, headers: { 'X-Remote-User': 'alice' } });
    assert.equal(b.status, 401);
  });

  test('bearer tokens still work on a server that trusts a front proxy', async () => {
    const r = await viaProxy({ token: tokens.reader });
    assert.equal(r.status, 200);
  });
});

describe('deploy/api manifests', () => {
  const manifests = async (file: string): Promise<KubeObject[]> =>
    parseAllDocuments(await readFile(new URL(`../../deploy/api/${file}`, import.meta.url), 'utf8')).map(
      (d) => d.toJSON() as KubeObject,
    );
  let asDeployed: ApiServer;

  before(async () => {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'convoy-system' } });
    for (const obj of await manifests('rbac.yaml')) {
      await applyObject(client, obj, { fieldManager: 'convoy-test', force: true });
    }
    // The server runs with the controller-manager's ServiceAccount and nothing but deploy/api/rbac.yaml.
    const token = await serviceAccountToken(client, 'convoy-system', 'convoy-controller-manager');
    const cluster = cp.kubeConfig.getCurrentCluster();
    assert.ok(cluster);
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [cluster],
      users: [{ name: 'convoy-controller-manager', token }],
      contexts: [{ name: 'sa', cluster: cluster.name, user: 'convoy-controller-manager' }],
      currentContext: 'sa',
    });
    await waitForAccess(client, 'RBAC allows the controller-manager to create tokenreviews', {
      user: 'system:serviceaccount:convoy-system:convoy-controller-manager',
      resourceAttributes: { verb: 'list', group: '', resource: 'secrets', namespace: NS },
    });
    // What the controller-manager does at start: read the front-proxy settings (none on this apiserver).
    assert.equal(await loadRequestHeaderConfig(kc), undefined);
    asDeployed = await startApiServer({ kubeConfig: kc, tls: { kind: 'selfSigned' } });
  });

  after(async () => {
    await asDeployed?.close();
  });

  test('rbac.yaml is enough for every route', async () => {
    const at = (method: string, path: string, opts: CallOptions) =>
      httpsCall(asDeployed.url, asDeployed.cert, method, path, opts);
    const sync = await at('POST', `${BASE}/auto/sync`, { token: tokens.syncer, body: { force: true } });
    assert.equal(sync.status, 200, JSON.stringify(sync.body));
    const health = await at('GET', `${BASE}/observed/health`, { token: tokens.reader });
    assert.equal(health.status, 200, JSON.stringify(health.body));
    assert.equal(health.body.entries.length, 2);
    const history = await at('GET', `${BASE}/observed/history`, { token: tokens.reader });
    assert.equal(history.status, 200, JSON.stringify(history.body));
    const render = await at('GET', `${BASE}/observed/renders/${REF_NEW}`, { token: tokens.reader });
    assert.equal(render.status, 200, JSON.stringify(render.body));
    const denied = await at('POST', `${BASE}/auto/sync`, { token: tokens.nobody, body: {} });
    assert.equal(denied.status, 403);
  });

  test('service.yaml and apiservice.yaml are valid for the apiserver (dry run, caBundle filled in)', async () => {
    for (const obj of [...(await manifests('service.yaml')), ...(await manifests('apiservice.yaml'))]) {
      if (obj.kind === 'APIService') {
        const spec = obj.spec as { caBundle?: string };
        assert.match(spec.caBundle ?? '', /^REPLACE_WITH/, 'the placeholder is there to be replaced');
        spec.caBundle = Buffer.from(server.cert).toString('base64');
      }
      await client.create(obj, { dryRun: 'All' });
    }
  });
});

describe('serving certificate rotation (files re-read while running)', () => {
  type Pair = { readonly cert: string; readonly key: string };
  let dir: string;
  let rotating: ApiServer;
  let first: Pair;
  let second: Pair;
  let third: Pair;
  const registry = new Registry();
  const metrics = newApiMetrics(registry);
  const logs: { level: number; msg: string; [k: string]: unknown }[] = [];
  const log = newLogger('api-rotation-test', { write: (line: string) => void logs.push(JSON.parse(line)) });
  const certFile = () => join(dir, 'tls.crt');
  const keyFile = () => join(dir, 'tls.key');
  const sha256 = (p: Pair) => new X509Certificate(p.cert).fingerprint256;
  let generation = 0;

  /** What the kubelet does to a Secret volume: the files in a fresh directory, then `..data` swapped to it by a rename. */
  async function projectSecret(pair: Pair): Promise<void> {
    const name = `..gen-${++generation}`;
    await mkdir(join(dir, name));
    await writeFile(join(dir, name, 'tls.crt'), pair.cert);
    await writeFile(join(dir, name, 'tls.key'), pair.key, { mode: 0o600 });
    await symlink(name, join(dir, '..data_tmp'));
    await rename(join(dir, '..data_tmp'), join(dir, '..data'));
  }

  /** The fingerprint a brand-new TLS connection is served. */
  const servedSha256 = () =>
    new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: rotating.port, rejectUnauthorized: false }, () => {
        const fp = socket.getPeerCertificate().fingerprint256;
        socket.end();
        resolve(fp);
      });
      socket.on('error', reject);
    });

  const reloads = async (result: 'applied' | 'refused') =>
    (await metrics.reloads.get()).values.find(
      (v) => v.labels.source === 'serving' && v.labels.result === result,
    )?.value ?? 0;
  const warnings = () => logs.filter((l) => l.level === 40 && /serving certificate not reloaded/.test(l.msg));

  before(async () => {
    [first, second, third] = await Promise.all([
      selfSignedCert(['127.0.0.1'], 1),
      selfSignedCert(['127.0.0.1'], 1),
      selfSignedCert(['127.0.0.1'], 1),
    ]);
    dir = await mkdtemp(join(tmpdir(), 'convoy-api-rotation-'));
    await projectSecret(first);
    await symlink('..data/tls.crt', certFile());
    await symlink('..data/tls.key', keyFile());
    rotating = await startApiServer({
      kubeConfig: cp.kubeConfig,
      tls: { kind: 'files', certFile: certFile(), keyFile: keyFile() },
      certReloadIntervalMs: 100,
      log,
      metrics,
    });
  });

  after(async () => {
    await rotating?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  test('a Secret-volume swap is served to new connections; an open keep-alive connection keeps going', async () => {
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = await httpsCall(rotating.url, first.cert, 'GET', '/healthz', { agent: keepAlive });
      assert.equal(before.status, 200);
      assert.equal(before.serverSha256, sha256(first));
      assert.equal(await servedSha256(), sha256(first));

      await projectSecret(second);
      await waitFor(
        'a new connection served the rotated certificate',
        async () => (await servedSha256()) === sha256(second),
      );
      assert.equal(rotating.cert, second.cert);
      const reloaded = logs.find((l) => l.msg === 'serving certificate reloaded');
      assert.ok(reloaded, 'the reload is logged');
      assert.equal(reloaded.fingerprint256, sha256(second));
      assert.equal(reloaded.previousFingerprint256, sha256(first));
      assert.equal(await reloads('applied'), 1);

      // The connection opened before the rotation was neither closed nor renegotiated.
      const during = await httpsCall(rotating.url, first.cert, 'GET', '/healthz', { agent: keepAlive });
      assert.equal(during.status, 200);
      assert.equal(during.reusedSocket, true);
      assert.equal(during.serverSha256, sha256(first));
      // And a new client that trusts only the new certificate gets through.
      const fresh = await httpsCall(rotating.url, second.cert, 'GET', '/healthz');
      assert.equal(fresh.status, 200);
      assert.equal(fresh.serverSha256, sha256(second));
    } finally {
      keepAlive.destroy();
    }
  });

  test('a pair caught half-way keeps the old certificate and warns naming the file; the next change is retried', async () => {
    // Written in place, certificate first (as `cp tls.crt …; cp tls.key …` would): for a moment the key is the old one.
    await writeFile(join(dir, '..data', 'tls.crt'), third.cert);
    const mismatch = await waitFor('a warning about the mismatched pair', async () => warnings()[0]);
    assert.equal(mismatch.file, keyFile());
    assert.match(mismatch.msg, /tls\.key: the key does not belong to the certificate in .*tls\.crt/);
    assert.match(mismatch.msg, /still serving the previous certificate/);
    assert.equal(await servedSha256(), sha256(second), 'the old certificate is still served');

    await writeFile(join(dir, '..data', 'tls.key'), third.key);
    await waitFor('the completed pair is served', async () => (await servedSha256()) === sha256(third));
    assert.equal(await reloads('applied'), 2);

    // A half-written certificate: not PEM yet.
    await writeFile(join(dir, '..data', 'tls.crt'), first.cert.slice(0, 120));
    const cut = await waitFor('a warning about the unparsable certificate', async () => warnings()[1]);
    assert.equal(cut.file, certFile());
    assert.match(cut.msg, /tls\.crt: not a PEM certificate/);
    assert.equal(await servedSha256(), sha256(third));
    assert.equal(rotating.cert, third.cert);
    assert.equal(await reloads('refused'), 2);
  });
});
