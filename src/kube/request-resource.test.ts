// Table test of the resource label of an API path.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resourceOfPath } from './request-resource.ts';

test('resourceOfPath: plural and subresource, without namespace, name or query', () => {
  const rows: ReadonlyArray<readonly [string, string]> = [
    ['/api/v1/namespaces/a/configmaps/b', 'configmaps'],
    ['/api/v1/namespaces/a/configmaps?labelSelector=x', 'configmaps'],
    ['/api/v1/configmaps?watch=1&resourceVersion=5', 'configmaps'],
    ['/apis/convoy.kumodo.io/v1alpha1/namespaces/a/releases/r/status', 'releases/status'],
    ['/apis/coordination.k8s.io/v1/namespaces/convoy-system/leases/x', 'leases'],
    ['/api/v1/namespaces', 'namespaces'],
    ['/api/v1/namespaces/a', 'namespaces'],
    ['/apis/apps/v1', 'discovery'],
    ['/api/v1', 'discovery'],
    ['/apis', 'discovery'],
    ['/version', '/version'],
    ['', '/'],
  ];
  for (const [path, want] of rows) assert.equal(resourceOfPath(path), want, path);
});
