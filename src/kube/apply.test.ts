// Table test of the apply body: what is stripped, what is kept, and the precondition.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../api/types.ts';
import { applyBody, preconditionsOf } from './apply.ts';

const live: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'team',
    uid: 'u-1',
    resourceVersion: '42',
    generation: 3,
    creationTimestamp: '2024-01-01T00:00:00Z',
    managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
    labels: { app: 'web' },
    annotations: { note: 'x' },
    finalizers: ['f'],
  },
  spec: { replicas: 3, unknownField: { nested: [1, 2.5, 'x'] } },
  status: { readyReplicas: 3 },
};

test('applyBody strips server-owned metadata and status, keeps everything else as is', () => {
  const body = applyBody(live, {});
  assert.deepEqual(body, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'team',
      labels: { app: 'web' },
      annotations: { note: 'x' },
      finalizers: ['f'],
    },
    spec: { replicas: 3, unknownField: { nested: [1, 2.5, 'x'] } },
  });
  assert.equal(JSON.stringify(body.spec), '{"replicas":3,"unknownField":{"nested":[1,2.5,"x"]}}');
});

test('applyBody sends the preconditions as metadata.resourceVersion and metadata.uid', () => {
  const body = applyBody(live, { resourceVersionPrecondition: '41', uidPrecondition: 'u-0' });
  assert.equal(body.metadata.resourceVersion, '41');
  assert.equal(body.metadata.uid, 'u-0');
  assert.deepEqual(applyBody(live, preconditionsOf(live)).metadata, {
    ...applyBody(live, {}).metadata,
    uid: 'u-1',
    resourceVersion: '42',
  });
});

test('applyBody keeps status for the status subresource', () => {
  assert.deepEqual(applyBody(live, { subresource: 'status' }).status, { readyReplicas: 3 });
});

test('applyBody does not alias the input', () => {
  const body = applyBody(live, {});
  (body.spec as { replicas: number }).replicas = 9;
  assert.equal((live.spec as { replicas: number }).replicas, 3);
});
