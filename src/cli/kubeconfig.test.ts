import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import {
  kubeconfigSource,
  loadConfig,
  mergeKubeconfigs,
  needsClientNode,
  parseKubeconfigText,
  resolveNamespace,
  selectContext,
} from './kubeconfig.ts';

test('kubeconfigSource: --kubeconfig, then $KUBECONFIG (existing files), then ~/.kube/config', () => {
  const exists = (p: string) => p !== '/missing' && p !== '/home/u/.kube/config';
  assert.deepEqual(kubeconfigSource('/a', `/b${delimiter}/c`, '/home/u', exists), {
    kind: 'files',
    paths: ['/a'],
    from: '--kubeconfig',
  });
  assert.deepEqual(kubeconfigSource(undefined, `/b${delimiter}/missing${delimiter}/c`, '/home/u', exists), {
    kind: 'files',
    paths: ['/b', '/c'],
    from: '$KUBECONFIG',
  });
  assert.equal(kubeconfigSource(undefined, '/missing', '/home/u', exists).kind, 'none');
  assert.deepEqual(
    kubeconfigSource(undefined, '', '/home/v', () => true),
    {
      kind: 'files',
      paths: ['/home/v/.kube/config'],
      from: '/home/v/.kube/config',
    },
  );
  const none = kubeconfigSource(undefined, undefined, '/home/u', exists);
  assert.equal(none.kind, 'none');
  assert.match(none.kind === 'none' ? none.message : '', /--kubeconfig.*KUBECONFIG/);
});

test('resolveNamespace: -n, else the context namespace, else default', () => {
  assert.equal(resolveNamespace('a', 'b'), 'a');
  assert.equal(resolveNamespace(undefined, 'b'), 'b');
  assert.equal(resolveNamespace('', ''), 'default');
  assert.equal(resolveNamespace(undefined, undefined), 'default');
});

const config = (ctx: string, ns: string | undefined, server: string) => `apiVersion: v1
kind: Config
current-context: ${ctx}
clusters:
- name: ${ctx}
  cluster: {server: ${server}}
users:
- name: ${ctx}
  user: {token: t}
contexts:
- name: ${ctx}
  context: {cluster: ${ctx}, user: ${ctx}${ns ? `, namespace: ${ns}` : ''}}
`;

test('loadConfig merges $KUBECONFIG files (first wins) and honours --context and -n', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'convoy-kc-'));
  try {
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    await writeFile(a, config('one', 'team-a', 'https://one.example:6443'));
    await writeFile(b, config('two', undefined, 'https://two.example:6443'));
    const env = { KUBECONFIG: `${a}${delimiter}${b}` };
    const first = loadConfig({ env });
    assert.equal(first.context, 'one');
    assert.equal(first.namespace, 'team-a');
    const second = loadConfig({ env, context: 'two' });
    assert.equal(second.server, 'https://two.example:6443');
    assert.equal(second.namespace, 'default');
    assert.equal(loadConfig({ env, namespace: 'x' }).namespace, 'x');
    assert.throws(() => loadConfig({ env, context: 'three' }), /context "three" does not exist/);
    assert.equal(loadConfig({ kubeconfig: b, env }).context, 'two');
    assert.throws(
      () => loadConfig({ kubeconfig: dir, env }),
      /^UserError: kubeconfig .*: is a directory, not a file$/,
    );
    assert.throws(
      () => loadConfig({ kubeconfig: join(dir, 'nope'), env }),
      /kubeconfig .*nope: no such file$/,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('LiteKubeConfig applies token, CA, client certificate (files relative to the kubeconfig) and TLS flags', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'convoy-kc-'));
  try {
    await writeFile(join(dir, 'ca.pem'), 'CA');
    await writeFile(join(dir, 'tok'), 'from-file\n');
    const file = join(dir, 'config');
    await writeFile(
      file,
      `apiVersion: v1
current-context: c
clusters:
- name: c
  cluster: {server: 'https://k:6443', certificate-authority: ca.pem, tls-server-name: kube, insecure-skip-tls-verify: true}
users:
- name: u
  user: {client-certificate-data: ${Buffer.from('CERT').toString('base64')}, client-key-data: ${Buffer.from('KEY').toString('base64')}, tokenFile: tok}
- name: b
  user: {username: ada, password: secret}
contexts:
- name: c
  context: {cluster: c, user: u}
- name: basic
  context: {cluster: c, user: b}
- name: exec
  context: {cluster: c, user: x}
`,
    );
    const r = loadConfig({ kubeconfig: file, env: {} });
    assert.equal(r.auth.kind, 'lite');
    const opts: Record<string, unknown> & { headers?: Record<string, string> } = { headers: { accept: 'x' } };
    if (r.auth.kind === 'lite') await r.auth.config.applyToHTTPSOptions(opts);
    assert.equal(String(opts.ca), 'CA');
    assert.equal(String(opts.cert), 'CERT');
    assert.equal(String(opts.key), 'KEY');
    assert.equal(opts.servername, 'kube');
    assert.equal(opts.rejectUnauthorized, false);
    assert.deepEqual(opts.headers, { accept: 'x', authorization: 'Bearer from-file' });
    const basic = loadConfig({ kubeconfig: file, env: {}, context: 'basic' });
    const o2: { headers?: Record<string, string> } = {};
    if (basic.auth.kind === 'lite') await basic.auth.config.applyToHTTPSOptions(o2);
    assert.equal(o2.headers?.authorization, `Basic ${Buffer.from('ada:secret').toString('base64')}`);
    // A context whose user is not defined has no credentials, like kubectl.
    assert.equal(loadConfig({ kubeconfig: file, env: {}, context: 'exec' }).auth.kind, 'lite');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('needsClientNode: exec plugins, auth providers, impersonation and proxies go to client-node', () => {
  const s = (user: Record<string, unknown>, cluster: Record<string, unknown> = {}) =>
    needsClientNode({
      context: 'c',
      cluster: { name: 'c', dir: '/', fields: { server: 'https://k', ...cluster } },
      user: { name: 'u', dir: '/', fields: user },
    });
  assert.equal(s({ token: 't' }), undefined);
  assert.equal(s({ exec: { command: 'aws' } }), 'user.exec');
  assert.equal(s({ 'auth-provider': { name: 'oidc' } }), 'user.auth-provider');
  assert.equal(s({ as: 'someone' }), 'user.as');
  assert.equal(s({}, { 'proxy-url': 'http://p' }), 'cluster.proxy-url');
});

test('kubeconfig problems are one line naming the file and what is missing', () => {
  const doc = (text: string) => parseKubeconfigText(text, '/k');
  assert.throws(() => doc('[1, 2]'), /^UserError: \/k: not a kubeconfig/);
  assert.throws(() => doc('clusters: {a: 1}'), /\/k: clusters must be a list/);
  assert.throws(() => doc('users: [{user: {}}]'), /\/k: users\[0\]\.name is missing/);
  assert.throws(() => doc('a: [b'), /\/k: not valid YAML/);
  const d = mergeKubeconfigs([doc('contexts: [{name: c, context: {cluster: nope}}]')]);
  assert.throws(() => selectContext(d, '/k', undefined), /no current context; pass --context/);
  assert.throws(() => selectContext(d, '/k', 'c'), /context "c" names cluster "nope", which is not in \/k/);
});
