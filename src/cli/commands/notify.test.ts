// `convoy get alerts|providers|receivers`: the words parsed before NAME, and the tables printed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Alert, Provider, Receiver } from '../../api/types.ts';
import { parseCommand } from '../args.ts';
import { notifyTable } from './notify.ts';

const G = { allNamespaces: false, output: 'table' } as const;

test('get takes alerts|providers|receivers (and release) before NAME', () => {
  assert.deepEqual(parseCommand(['get', 'alerts']), {
    ok: true,
    command: { kind: 'get', global: G, resource: 'alerts' },
  });
  assert.deepEqual(parseCommand(['get', 'provider', 'slack']), {
    ok: true,
    command: { kind: 'get', global: G, resource: 'providers', name: 'slack' },
  });
  assert.deepEqual(parseCommand(['get', 'release', 'alerts']), {
    ok: true,
    command: { kind: 'get', global: G, name: 'alerts' },
  });
  assert.deepEqual(parseCommand(['get', 'web']), {
    ok: true,
    command: { kind: 'get', global: G, name: 'web' },
  });
  const bad = parseCommand(['get', 'receivers', '--status-selector', 'ready=true']);
  assert.equal(bad.ok, false);
  assert.equal(parseCommand(['get', 'alerts', 'a', 'b']).ok, false);
});

test('tables: kind-specific columns, READY and MESSAGE from the Ready condition', () => {
  const now = new Date('2026-01-01T01:00:00Z');
  const meta = (name: string) => ({ name, namespace: 'shop', creationTimestamp: '2026-01-01T00:00:00Z' });
  const cond = (status: 'True' | 'False', message: string) => ({
    conditions: [{ type: 'Ready', status, reason: 'R', message, lastTransitionTime: '2026-01-01T00:00:00Z' }],
  });
  const p: Provider = {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Provider',
    metadata: meta('slack'),
    spec: { type: 'slack', secretRef: { name: 'slack-url' } },
    status: cond('False', 'the last attempt failed: HTTP 503; messages are retried with backoff'),
  };
  const a: Alert = {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Alert',
    metadata: meta('oncall'),
    spec: { providerRef: { name: 'slack' }, events: ['RolledBack', 'Failed'], severity: 'error' },
  };
  const r: Receiver = {
    apiVersion: 'convoy.kumodo.io/v1alpha1',
    kind: 'Receiver',
    metadata: meta('gh'),
    spec: { type: 'github', secretRef: { name: 'gh' } },
    status: { ...cond('True', 'ok'), webhookPath: '/hook/shop/gh' },
  };
  assert.deepEqual(notifyTable('providers', [p], false, now, false), [
    'NAME    TYPE    READY   AGE   MESSAGE',
    'slack   slack   False   60m   the last attempt failed: HTTP 503; messages are retried with backoff',
  ]);
  assert.deepEqual(notifyTable('alerts', [a], true, now, false), [
    'NAMESPACE   NAME     PROVIDER   EVENTS              SEVERITY   READY   AGE   MESSAGE',
    'shop        oncall   slack      RolledBack,Failed   error      -       60m',
  ]);
  assert.deepEqual(notifyTable('receivers', [r], false, now, false), [
    'NAME   TYPE     READY   PATH            AGE   MESSAGE',
    'gh     github   True    /hook/shop/gh   60m   ok',
  ]);
});
