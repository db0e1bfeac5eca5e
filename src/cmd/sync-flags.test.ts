// Table test of convoy-observer's wake-up flags.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSyncSettings } from './sync-flags.ts';

test('default: POST /sync through kube-apiserver; a URL sends it straight to the API', () => {
  assert.deepEqual(parseSyncSettings({}, {}), { kind: 'aggregated' });
  assert.deepEqual(parseSyncSettings({ 'sync-mode': 'api' }, { CONVOY_SYNC_MODE: '' }), {
    kind: 'aggregated',
  });
  assert.deepEqual(parseSyncSettings({ 'sync-api-url': 'https://127.0.0.1:8443/' }, {}), {
    kind: 'direct',
    url: 'https://127.0.0.1:8443',
    caFile: undefined,
  });
  assert.deepEqual(
    parseSyncSettings(
      {},
      { CONVOY_SYNC_API_URL: 'https://convoy-api.convoy-system.svc', CONVOY_SYNC_API_CA_FILE: '/ca' },
    ),
    { kind: 'direct', url: 'https://convoy-api.convoy-system.svc', caFile: '/ca' },
  );
  // A flag wins over the variable.
  assert.deepEqual(
    parseSyncSettings({ 'sync-api-url': 'https://[::1]:9443' }, { CONVOY_SYNC_API_URL: 'https://x:1' }),
    { kind: 'direct', url: 'https://[::1]:9443', caFile: undefined },
  );
});

test('annotation mode only when asked for', () => {
  assert.deepEqual(parseSyncSettings({ 'sync-mode': 'annotation' }, {}), { kind: 'annotation' });
  assert.deepEqual(parseSyncSettings({}, { CONVOY_SYNC_MODE: 'annotation' }), { kind: 'annotation' });
  assert.deepEqual(parseSyncSettings({ 'sync-mode': 'api' }, { CONVOY_SYNC_MODE: 'annotation' }), {
    kind: 'aggregated',
  });
});

test('bad input is rejected naming the flag', () => {
  const rows: ReadonlyArray<[Record<string, string>, RegExp]> = [
    [{ 'sync-mode': 'patch' }, /--sync-mode must be api or annotation/],
    [{ 'sync-mode': 'annotation', 'sync-api-url': 'https://x' }, /drop --sync-api-url/],
    [{ 'sync-api-ca-file': '/ca' }, /--sync-api-ca-file needs --sync-api-url/],
    [{ 'sync-api-url': 'http://127.0.0.1:8443' }, /must use https/],
    [{ 'sync-api-url': '127.0.0.1:8443' }, /must (be a URL|use https)/],
    [{ 'sync-api-url': 'https://h:1/apis' }, /origin only/],
    [{ 'sync-api-url': 'not a url' }, /must be a URL/],
  ];
  for (const [flags, re] of rows)
    assert.throws(() => parseSyncSettings(flags, {}), re, JSON.stringify(flags));
});
