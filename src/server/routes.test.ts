import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiResourceList } from './discovery.ts';
import { type Access, accessFor, forbiddenMessage, type Route, route, secretsAccessFor } from './routes.ts';

const base = '/apis/api.convoy.kumodo.io/v1alpha1';
const rel = `${base}/namespaces/prod/releases/web`;
const REF = `sha256:${'ab'.repeat(32)}`;

const routes: { method: string; url: string; want: Route }[] = [
  { method: 'GET', url: '/healthz', want: { kind: 'healthz' } },
  { method: 'GET', url: '/readyz', want: { kind: 'healthz' } },
  { method: 'GET', url: '/apis', want: { kind: 'groupList' } },
  { method: 'GET', url: '/apis/', want: { kind: 'groupList' } },
  { method: 'GET', url: '/apis/api.convoy.kumodo.io', want: { kind: 'group' } },
  { method: 'GET', url: `${base}?timeout=32s`, want: { kind: 'resourceList' } },
  { method: 'POST', url: `${rel}/sync`, want: { kind: 'sync', namespace: 'prod', name: 'web' } },
  { method: 'POST', url: `${rel}/sync?dryRun=All`, want: { kind: 'sync', namespace: 'prod', name: 'web' } },
  { method: 'GET', url: `${rel}/health`, want: { kind: 'health', namespace: 'prod', name: 'web' } },
  { method: 'GET', url: `${rel}/history/`, want: { kind: 'history', namespace: 'prod', name: 'web' } },
  {
    method: 'GET',
    url: `${rel}/renders/${REF}`,
    want: { kind: 'render', namespace: 'prod', name: 'web', renderRef: REF },
  },
  {
    method: 'GET',
    url: `${rel}/renders/${encodeURIComponent(REF)}`,
    want: { kind: 'render', namespace: 'prod', name: 'web', renderRef: REF },
  },
  {
    method: 'GET',
    url: `${base}/namespaces/prod/releases/web.v2/health`,
    want: { kind: 'health', namespace: 'prod', name: 'web.v2' },
  },
];

for (const c of routes) {
  test(`route: ${c.method} ${c.url}`, () => {
    assert.deepEqual(route(c.method, c.url), { ok: true, route: c.want });
  });
}

const errors: { method: string; url: string; code: number; message: RegExp; allow?: string[] }[] = [
  { method: 'GET', url: '/', code: 404, message: /could not find/ },
  { method: 'GET', url: '/apis/convoy.kumodo.io', code: 404, message: /could not find/ },
  { method: 'GET', url: '/apis/api.convoy.kumodo.io/v1', code: 404, message: /could not find/ },
  { method: 'GET', url: `${rel}`, code: 404, message: /could not find/ },
  { method: 'GET', url: `${rel}/status`, code: 404, message: /could not find/ },
  { method: 'GET', url: `${rel}/renders`, code: 404, message: /could not find/ },
  { method: 'GET', url: `${rel}/health/extra`, code: 404, message: /could not find/ },
  {
    method: 'GET',
    url: `${base}/namespaces/prod/deployments/web/health`,
    code: 404,
    message: /could not find/,
  },
  { method: 'GET', url: `${rel}/sync`, code: 405, message: /GET is not allowed.*use POST/, allow: ['POST'] },
  { method: 'PUT', url: `${rel}/sync`, code: 405, message: /PUT is not allowed/, allow: ['POST'] },
  { method: 'POST', url: `${rel}/health`, code: 405, message: /use GET/, allow: ['GET'] },
  { method: 'DELETE', url: `${rel}/renders/${REF}`, code: 405, message: /use GET/, allow: ['GET'] },
  { method: 'POST', url: '/apis', code: 405, message: /use GET/, allow: ['GET'] },
  { method: 'GET', url: `${rel}/renders/sha256:xyz`, code: 400, message: /invalid renderRef "sha256:xyz"/ },
  {
    method: 'GET',
    url: `${base}/namespaces/Prod/releases/web/health`,
    code: 400,
    message: /invalid namespace "Prod"/,
  },
  {
    method: 'GET',
    url: `${base}/namespaces/prod/releases/a%2Fb/health`,
    code: 400,
    message: /invalid release name "a\/b"/,
  },
  {
    method: 'GET',
    url: `${base}/namespaces/prod/releases/%zz/health`,
    code: 400,
    message: /percent-encoding/,
  },
];

for (const c of errors) {
  test(`route error: ${c.method} ${c.url} → ${c.code}`, () => {
    const r = route(c.method, c.url);
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.error.code, c.code);
    assert.match(r.error.message, c.message);
    assert.deepEqual(r.error.allow, c.allow);
  });
}

test('accessFor: verbs and subresources per route; discovery and healthz are public', () => {
  const g = { group: 'api.convoy.kumodo.io', resource: 'releases', namespace: 'p', name: 'w' } as const;
  const cases: [Route, Access | undefined][] = [
    [{ kind: 'healthz' }, undefined],
    [{ kind: 'groupList' }, undefined],
    [{ kind: 'group' }, undefined],
    [{ kind: 'resourceList' }, undefined],
    [
      { kind: 'sync', namespace: 'p', name: 'w' },
      { ...g, verb: 'create', subresource: 'sync' },
    ],
    [
      { kind: 'health', namespace: 'p', name: 'w' },
      { ...g, verb: 'get', subresource: 'health' },
    ],
    [
      { kind: 'history', namespace: 'p', name: 'w' },
      { ...g, verb: 'get', subresource: 'history' },
    ],
    [
      { kind: 'render', namespace: 'p', name: 'w', renderRef: REF },
      { ...g, verb: 'get', subresource: 'renders' },
    ],
  ];
  for (const [r, want] of cases) assert.deepEqual(accessFor(r), want, r.kind);
});

test('every protected route is listed in discovery with the verb SubjectAccessReview asks for', () => {
  const listed = new Map(
    (apiResourceList().resources as { name: string; verbs: string[] }[]).map((r) => [r.name, r.verbs]),
  );
  const rs: Route[] = [
    { kind: 'sync', namespace: 'p', name: 'w' },
    { kind: 'health', namespace: 'p', name: 'w' },
    { kind: 'history', namespace: 'p', name: 'w' },
    { kind: 'render', namespace: 'p', name: 'w', renderRef: REF },
  ];
  for (const r of rs) {
    const a = accessFor(r);
    assert.ok(a && a.resource === 'releases');
    assert.deepEqual(listed.get(`${a.resource}/${a.subresource}`), [a.verb]);
  }
  assert.equal(listed.size, rs.length);
});

test('forbiddenMessage names user, verb, resource/subresource and namespace', () => {
  const a: Access = {
    verb: 'create',
    group: 'api.convoy.kumodo.io',
    resource: 'releases',
    subresource: 'sync',
    namespace: 'y',
    name: 'web',
  };
  assert.equal(
    forbiddenMessage('x', a),
    'user "x" cannot create releases/sync in namespace "y" (API group "api.convoy.kumodo.io", release "web")',
  );
  assert.match(
    forbiddenMessage('x', a, 'no RBAC policy matched'),
    /release "web"\): no RBAC policy matched$/,
  );
});

test('renders?showSecrets=true: parsed, and needs get secrets in the namespace as a second review', () => {
  const plain = route('GET', `/apis/api.convoy.kumodo.io/v1alpha1/namespaces/p/releases/w/renders/${REF}`);
  assert.ok(plain.ok);
  assert.equal(secretsAccessFor(plain.route), undefined, 'masked: only releases/renders');
  for (const q of ['?showSecrets=false', '?showsecrets=true', '?x=1']) {
    const r = route('GET', `/apis/api.convoy.kumodo.io/v1alpha1/namespaces/p/releases/w/renders/${REF}${q}`);
    assert.ok(r.ok);
    assert.equal(secretsAccessFor(r.route), undefined, q);
  }
  const shown = route(
    'GET',
    `/apis/api.convoy.kumodo.io/v1alpha1/namespaces/p/releases/w/renders/${REF}?showSecrets=true`,
  );
  assert.ok(shown.ok);
  assert.deepEqual(shown.route, {
    kind: 'render',
    namespace: 'p',
    name: 'w',
    renderRef: REF,
    showSecrets: true,
  });
  const s = secretsAccessFor(shown.route);
  assert.deepEqual(s, { verb: 'get', group: '', resource: 'secrets', namespace: 'p' });
  assert.equal(
    forbiddenMessage('x', s as Access),
    'user "x" cannot get secrets in namespace "p", which showSecrets=true needs',
  );
});
