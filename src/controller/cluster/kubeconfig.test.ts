import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { loadKubeconfig } from './kubeconfig.ts';

const TOKEN = 'tok-s3cret-value';

function config(
  user: Record<string, unknown> = { token: TOKEN },
  cluster: Record<string, unknown> = { server: 'https://10.0.0.1:6443' },
  currentContext = 'prod',
): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'prod', cluster }],
    users: [{ name: 'deployer', user }],
    contexts: [{ name: 'prod', context: { cluster: 'prod', user: 'deployer' } }],
    'current-context': currentContext,
  });
}

describe('loadKubeconfig', () => {
  it('loads a token kubeconfig with its server and user', () => {
    const r = loadKubeconfig(config());
    assert.equal(r.kind, 'ok');
    if (r.kind !== 'ok') return;
    assert.equal(r.kubeConfig.getCurrentCluster()?.server, 'https://10.0.0.1:6443');
    assert.equal(r.kubeConfig.getCurrentUser()?.token, TOKEN);
  });

  it('accepts inline certificate data and impersonation (as)', () => {
    const r = loadKubeconfig(
      config(
        { 'client-certificate-data': 'Y2VydA==', 'client-key-data': 'a2V5', as: 'someone' },
        { server: 'https://x', 'certificate-authority-data': 'Y2E=' },
      ),
    );
    assert.equal(r.kind, 'ok');
  });

  const refused: [string, string, string][] = [
    ['exec plugin', config({ exec: { command: '/bin/sh', args: ['-c', 'id'] } }), 'exec'],
    [
      'auth-provider',
      config({ 'auth-provider': { name: 'gcp', config: { 'cmd-path': '/bin/sh' } } }),
      'auth-provider',
    ],
    [
      'token-file (convoy would send its own token)',
      config({ 'token-file': '/var/run/secrets/kubernetes.io/serviceaccount/token' }),
      'token-file',
    ],
    [
      'client-certificate file',
      config({ 'client-certificate': '/etc/cert.pem', token: 't' }),
      'client-certificate',
    ],
    ['client-key file', config({ 'client-key': '/etc/key.pem' }), 'client-key'],
    [
      'certificate-authority file',
      config(undefined, { server: 'https://x', 'certificate-authority': '/etc/ca.pem' }),
      'certificate-authority',
    ],
  ];
  for (const [name, text, field] of refused) {
    it(`refuses ${name}, naming the field`, () => {
      const r = loadKubeconfig(text);
      assert.equal(r.kind, 'invalid');
      if (r.kind !== 'invalid') return;
      assert.match(r.message, new RegExp(`sets ${field},`));
      assert.match(r.message, /"deployer"|"prod"/);
    });
  }

  const invalid: [string, string, RegExp][] = [
    ['not YAML', 'clusters: [\n  - name: x\n    token: "unterminated', /not valid YAML at line \d+/],
    ['a YAML scalar', 'just text', /expected a YAML mapping/],
    ['no current-context', config(undefined, undefined, ''), /no current-context/],
    [
      'an unknown current-context',
      config(undefined, undefined, 'dev'),
      /current-context "dev" names no context/,
    ],
    [
      'a cluster without server',
      config(undefined, { 'certificate-authority-data': 'Y2E=' }),
      /clusters\[0\]\.cluster\.server is missing/,
    ],
  ];
  for (const [name, text, message] of invalid) {
    it(`reports ${name}`, () => {
      const r = loadKubeconfig(text);
      assert.equal(r.kind, 'invalid');
      if (r.kind === 'invalid') assert.match(r.message, message);
    });
  }

  it('never quotes the text in a message', () => {
    const texts = [
      `users: [{name: u, user: {token: ${TOKEN}, exec: {command: x}}}]`,
      `token: ${TOKEN}\n  bad: [indent`,
      `users: [{name: u, user: {token: ${TOKEN}}}]\ncurrent-context: c`,
    ];
    for (const t of texts) {
      const r = loadKubeconfig(t);
      assert.equal(r.kind, 'invalid', t);
      if (r.kind === 'invalid') assert.doesNotMatch(r.message, new RegExp(TOKEN));
    }
  });
});
