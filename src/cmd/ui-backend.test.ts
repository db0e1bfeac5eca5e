// The impersonation headers the in-cluster UI sends for its user: every group, the uid and each extra
// attribute (its key percent-encoded, as kube-apiserver decodes it). Table test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { impersonationHeaders } from './ui-backend.ts';

test('impersonationHeaders', () => {
  assert.deepEqual(impersonationHeaders({ username: 'alice', groups: [], extra: {} }), {
    'Impersonate-User': 'alice',
  });
  assert.deepEqual(
    impersonationHeaders({
      username: 'system:serviceaccount:shop:viewer',
      uid: 'u-1',
      groups: ['system:serviceaccounts', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/pod-name': ['web-0'], scopes: [] },
    }),
    {
      'Impersonate-User': 'system:serviceaccount:shop:viewer',
      'Impersonate-Uid': 'u-1',
      'Impersonate-Group': ['system:serviceaccounts', 'system:authenticated'],
      'Impersonate-Extra-authentication.kubernetes.io%2Fpod-name': ['web-0'],
    },
  );
});
