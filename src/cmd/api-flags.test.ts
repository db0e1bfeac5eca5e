// Table tests of the controller-manager's --api-* flags: splitting them off, defaults, environment, errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEV_SELF_SIGNED_HOSTS, parseApiOptions, parseBindAddress, splitApiArgs } from './api-flags.ts';

test('splitApiArgs takes the --api-* flags and their values, leaving the rest in order', () => {
  const rows: ReadonlyArray<[string[], string[], string[]]> = [
    [[], [], []],
    [
      ['--kubeconfig', 'k', '--api-bind-address', '127.0.0.1:0', '--allow-file-urls'],
      ['--api-bind-address', '127.0.0.1:0'],
      ['--kubeconfig', 'k', '--allow-file-urls'],
    ],
    // Booleans stand alone: the next argument is not their value.
    [['--api-dev-self-signed', '--identity', 'x'], ['--api-dev-self-signed'], ['--identity', 'x']],
    [
      ['--api-requestheader-from-cluster=false', '--api-tls-cert-file=/c', '--api-bind-address', ''],
      ['--api-requestheader-from-cluster=false', '--api-tls-cert-file=/c', '--api-bind-address', ''],
      [],
    ],
    // A dangling value-taking flag stays with the API flags (parseApiOptions reports it).
    [['--identity', 'x', '--api-auth-cache-ttl'], ['--api-auth-cache-ttl'], ['--identity', 'x']],
    // Unknown --api-ish names are not ours: the other parser rejects them.
    [['--api-nope', 'v'], [], ['--api-nope', 'v']],
  ];
  for (const [argv, api, rest] of rows) assert.deepEqual(splitApiArgs(argv), { api, rest }, argv.join(' '));
});

test('parseBindAddress: host:port, :port, [v6]:port', () => {
  assert.deepEqual(parseBindAddress('0.0.0.0:8443'), { host: '0.0.0.0', port: 8443 });
  assert.deepEqual(parseBindAddress('127.0.0.1:0'), { host: '127.0.0.1', port: 0 });
  assert.deepEqual(parseBindAddress(':9443'), { host: '0.0.0.0', port: 9443 });
  assert.deepEqual(parseBindAddress('[::1]:8443'), { host: '::1', port: 8443 });
  assert.deepEqual(parseBindAddress('localhost:1'), { host: 'localhost', port: 1 });
  for (const bad of ['8443', '127.0.0.1', '127.0.0.1:70000', '::1:8443', 'a:b', '[::1]']) {
    assert.throws(() => parseBindAddress(bad), /--api-bind-address must be host:port/, bad);
  }
});

test('defaults: 0.0.0.0:8443, requestheader from the cluster, 10 s auth cache', () => {
  assert.deepEqual(parseApiOptions(['--api-dev-self-signed'], {}), {
    kind: 'serve',
    host: '0.0.0.0',
    port: 8443,
    tls: { kind: 'devSelfSigned', hosts: DEV_SELF_SIGNED_HOSTS },
    requestHeader: { kind: 'fromCluster' },
    authCacheTtlMs: 10_000,
  });
  assert.ok(DEV_SELF_SIGNED_HOSTS.includes('convoy-api.convoy-system.svc'));
});

test('disabled with "" or off, by flag or variable; an empty variable counts as unset', () => {
  assert.deepEqual(parseApiOptions(['--api-bind-address', ''], {}), { kind: 'off' });
  assert.deepEqual(parseApiOptions(['--api-bind-address=off'], {}), { kind: 'off' });
  assert.deepEqual(parseApiOptions([], { CONVOY_API_BIND_ADDRESS: 'OFF' }), { kind: 'off' });
  // Off needs no certificate.
  assert.throws(() => parseApiOptions([], { CONVOY_API_BIND_ADDRESS: '' }), /needs a serving certificate/);
});

test('environment, and flags that win over it', () => {
  const env = {
    CONVOY_API_BIND_ADDRESS: '127.0.0.1:9000',
    CONVOY_API_TLS_CERT_FILE: '/env.crt',
    CONVOY_API_TLS_KEY_FILE: '/env.key',
    CONVOY_API_REQUESTHEADER_CLIENT_CA_FILE: '/front-proxy-ca.crt',
    CONVOY_API_REQUESTHEADER_ALLOWED_NAMES: 'front-proxy-client, aggregator ,',
    CONVOY_API_AUTH_CACHE_TTL: '1m',
  };
  assert.deepEqual(parseApiOptions([], env), {
    kind: 'serve',
    host: '127.0.0.1',
    port: 9000,
    tls: { kind: 'files', certFile: '/env.crt', keyFile: '/env.key' },
    requestHeader: {
      kind: 'files',
      clientCaFile: '/front-proxy-ca.crt',
      allowedNames: ['front-proxy-client', 'aggregator'],
    },
    authCacheTtlMs: 60_000,
  });
  const o = parseApiOptions(
    ['--api-bind-address=[::]:8443', '--api-tls-cert-file', '/f.crt', '--api-auth-cache-ttl', '0'],
    env,
  );
  assert.equal(o.kind, 'serve');
  if (o.kind !== 'serve') return;
  assert.equal(o.host, '::');
  assert.deepEqual(o.tls, { kind: 'files', certFile: '/f.crt', keyFile: '/env.key' });
  assert.equal(o.authCacheTtlMs, 0);
});

test('requestheader: from the cluster unless turned off; files win', () => {
  const rh = (argv: string[], env: Record<string, string> = {}) => {
    const o = parseApiOptions(['--api-dev-self-signed', ...argv], env);
    return o.kind === 'serve' ? o.requestHeader : undefined;
  };
  assert.deepEqual(rh(['--api-requestheader-from-cluster=false']), { kind: 'none' });
  assert.deepEqual(rh([], { CONVOY_API_REQUESTHEADER_FROM_CLUSTER: 'no' }), { kind: 'none' });
  assert.deepEqual(rh(['--api-requestheader-from-cluster']), { kind: 'fromCluster' });
  assert.deepEqual(rh(['--api-requestheader-client-ca-file', '/ca']), {
    kind: 'files',
    clientCaFile: '/ca',
    allowedNames: [],
  });
});

test('bad input is rejected naming the flag', () => {
  const rows: ReadonlyArray<[string[], RegExp]> = [
    [[], /needs a serving certificate.*--api-bind-address=off/],
    [['--api-tls-cert-file', '/c'], /go together/],
    [['--api-tls-key-file', '/k'], /go together/],
    [
      ['--api-tls-cert-file', '/c', '--api-tls-key-file', '/k', '--api-dev-self-signed'],
      /cannot be combined/,
    ],
    [['--api-dev-self-signed=maybe'], /api-dev-self-signed.*true or false/],
    [
      ['--api-dev-self-signed', '--api-requestheader-allowed-names', 'x'],
      /needs --api-requestheader-client-ca-file/,
    ],
    [['--api-dev-self-signed', '--api-auth-cache-ttl', '10'], /api-auth-cache-ttl.*invalid duration/],
    [['--api-dev-self-signed', '--api-auth-cache-ttl', '-1s'], /must not be negative/],
    [['--api-dev-self-signed', '--api-bind-address', '8443'], /host:port/],
    [['--api-auth-cache-ttl'], /needs a value/],
    [['stray'], /unexpected argument/],
  ];
  for (const [argv, re] of rows) assert.throws(() => parseApiOptions(argv, {}), re, argv.join(' '));
});
