// What a page may ask and what it is told: bodies are checked field by field, and a refused permission
// names the verb and resource from the API server's answer (or convoy's), else the action's own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forbidden, forbiddenText, parseAction } from './actions.ts';

const REF = `sha256:${'a'.repeat(64)}`;

test('action bodies', () => {
  const rows: [unknown, string][] = [
    [{ kind: 'sync' }, 'ok sync'],
    [{ kind: 'approve', renderRef: REF }, 'ok approve'],
    [{ kind: 'approve' }, 'renderRef: must be sha256: followed by 64 hex digits'],
    [{ kind: 'pin', renderRef: 'abc' }, 'renderRef: must be sha256: followed by 64 hex digits'],
    [{ kind: 'sync', renderRef: REF }, 'renderRef: not taken by sync'],
    [
      { kind: 'delete' },
      'kind: must be one of sync, forceSync, approve, pin, rollback, unpin, suspend, resume',
    ],
    [{ kind: 'sync', force: true }, 'force: unknown field'],
    [[], 'body: must be a JSON object'],
  ];
  for (const [body, want] of rows) {
    const p = parseAction(body);
    assert.equal(p.ok ? `ok ${p.action.kind}` : p.message, want, JSON.stringify(body));
  }
});

test('a 403 names the missing verb and resource', () => {
  const kube = forbidden(
    'sync',
    'shop',
    'releases.api.convoy.kumodo.io "web" is forbidden: User "system:serviceaccount:shop:viewer" cannot create resource "releases/sync" in API group "api.convoy.kumodo.io" in the namespace "shop"',
  );
  assert.equal(
    kube.kind === 'forbidden' ? forbiddenText(kube) : '',
    'permission denied: you may not create releases/sync (API group api.convoy.kumodo.io) in namespace shop',
  );
  const convoy = forbidden('approve', 'shop', 'user "bob" cannot create releases/sync in namespace "shop"');
  assert.deepEqual(convoy.kind === 'forbidden' ? [convoy.verb, convoy.resource, convoy.group] : [], [
    'create',
    'releases/sync',
    'api.convoy.kumodo.io',
  ]);
  const other = forbidden('suspend', 'shop', 'forbidden for some reason');
  assert.deepEqual(other.kind === 'forbidden' ? [other.verb, other.resource, other.group] : [], [
    'patch',
    'releases',
    'convoy.kumodo.io',
  ]);
});
