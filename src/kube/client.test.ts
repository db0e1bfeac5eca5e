// Table test of the pure parts of KubeClient: list query strings and collection/object paths.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ListOptions, listQuery, resourcePath } from './client.ts';

test('listQuery: selectors, limit and continue; an empty token is no token', () => {
  const rows: ReadonlyArray<readonly [string, ListOptions, Record<string, string>]> = [
    ['nothing', {}, {}],
    ['label selector', { labelSelector: 'a=b' }, { labelSelector: 'a=b' }],
    [
      'all of it',
      { labelSelector: 'a=b', fieldSelector: 'type=x/y', limit: 50, continue: 'tok', metadataOnly: true },
      { labelSelector: 'a=b', fieldSelector: 'type=x/y', limit: '50', continue: 'tok' },
    ],
    ['empty continue', { limit: 1, continue: '' }, { limit: '1' }],
  ];
  for (const [what, opts, want] of rows) {
    const got = Object.fromEntries(Object.entries(listQuery(opts)).filter(([, v]) => v !== undefined));
    assert.deepEqual(got, want, what);
  }
});

test('resourcePath: core and grouped, namespaced and cluster-scoped', () => {
  const secrets = { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true };
  const crds = {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
  };
  assert.equal(resourcePath(secrets, { namespace: 'ns' }), '/api/v1/namespaces/ns/secrets');
  assert.equal(resourcePath(secrets, { namespace: 'ns', name: 'a' }), '/api/v1/namespaces/ns/secrets/a');
  assert.equal(resourcePath(secrets, {}), '/api/v1/secrets');
  assert.throws(() => resourcePath(secrets, { name: 'a' }), /namespace is required/);
  assert.equal(
    resourcePath(crds, { name: 'x.y' }, 'status'),
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x.y/status',
  );
});
