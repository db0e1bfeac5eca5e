import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { kubeconfigSource, loadConfig, resolveNamespace } from './kubeconfig.ts';

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
    assert.equal(first.kubeConfig.getCurrentContext(), 'one');
    assert.equal(first.namespace, 'team-a');
    const second = loadConfig({ env, context: 'two' });
    assert.equal(second.kubeConfig.getCurrentCluster()?.server, 'https://two.example:6443');
    assert.equal(second.namespace, 'default');
    assert.equal(loadConfig({ env, namespace: 'x' }).namespace, 'x');
    assert.throws(() => loadConfig({ env, context: 'three' }), /context "three" does not exist/);
    assert.equal(loadConfig({ kubeconfig: b, env }).kubeConfig.getCurrentContext(), 'two');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
