// Table test of the pure parts of requestSync: the path a wake-up is POSTed to, and how it is described.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Release } from '../../../api/types.ts';
import { annotationPatch, describeSyncVia, syncPath } from './sync-request.ts';

const rel = (namespace: string, name: string): Release =>
  ({
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Release',
    metadata: { namespace, name },
    spec: {},
  }) as Release;

test('syncPath names the release under the aggregated API group', () => {
  assert.equal(
    syncPath(rel('prod', 'web')),
    '/apis/api.convoy.kumodo.io/v1alpha1/namespaces/prod/releases/web/sync',
  );
  assert.equal(
    syncPath(rel('a', 'web.v2')),
    '/apis/api.convoy.kumodo.io/v1alpha1/namespaces/a/releases/web.v2/sync',
  );
});

test('describeSyncVia says where wake-ups go, and flags the degraded mode', () => {
  assert.match(describeSyncVia({ kind: 'aggregated' }), /through kube-apiserver/);
  assert.match(
    describeSyncVia({ kind: 'direct', url: 'https://127.0.0.1:8443' }),
    /https:\/\/127\.0\.0\.1:8443/,
  );
  assert.match(describeSyncVia({ kind: 'annotation' }), /degraded/);
});

test('annotationPatch stamps milliseconds and clears an earlier requester', () => {
  assert.deepEqual(annotationPatch(new Date('2026-12-02T10:00:00.123Z')), {
    metadata: {
      annotations: {
        'convoy.kumodo.io/sync-requested-at': '2026-12-02T10:00:00.123Z',
        'convoy.kumodo.io/sync-requested-by': null,
      },
    },
  });
});
