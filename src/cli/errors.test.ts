import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromResponse } from '../kube/errors.ts';
import { describeError, UserError } from './errors.ts';

const errno = (code: string, fields: Record<string, unknown>) =>
  Object.assign(new Error(`${code}: raw node text, open '${String(fields.path ?? '')}'`), {
    code,
    ...fields,
  });

test('describeError: one human line for files, the network, the API and anything else', () => {
  const cases: [unknown, string][] = [
    [
      new UserError('release "web" not found in namespace "shop"'),
      'release "web" not found in namespace "shop"',
    ],
    [errno('ENOENT', { path: 'rules.yaml', syscall: 'open' }), 'rules.yaml: no such file or directory'],
    [errno('EISDIR', { path: 'deploy', syscall: 'read' }), 'deploy: is a directory, not a file'],
    [errno('EACCES', { path: '/etc/k', syscall: 'open' }), '/etc/k: permission denied'],
    [
      errno('ECONNREFUSED', { address: '127.0.0.1', port: 6443 }),
      'cannot reach 127.0.0.1:6443: connection refused (is the API server running?)',
    ],
    [errno('ENOTFOUND', { hostname: 'k8s.example' }), 'cannot reach k8s.example: host not found'],
    [
      fromResponse(404, {
        reason: 'NotFound',
        message: 'no resource for kind Release in convoy.kumodo.io/v1alpha1',
      }),
      'no resource for kind Release in convoy.kumodo.io/v1alpha1: is the CRD installed? (kubectl apply -f deploy/crds)',
    ],
    [
      fromResponse(
        422,
        { message: 'Release.convoy.kumodo.io "web" is invalid: spec.source: Required value' },
        {
          method: 'PATCH',
          path: '/apis/x',
        },
      ),
      'Release.convoy.kumodo.io "web" is invalid: spec.source: Required value',
    ],
    [
      fromResponse(401, 'Unauthorized'),
      "the API server did not accept the kubeconfig's credentials (401 Unauthorized): Unauthorized",
    ],
    [new Error('first line\n    at stack (x.ts:1:1)'), 'first line'],
    ['a string', 'a string'],
  ];
  for (const [err, want] of cases) assert.equal(describeError(err), want);
});
