// Table tests: credentials for a registry host out of docker-config Secrets, and the CA bundle key.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { caBundleOf, credentialsFor } from './auth.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const cfg = (auths: Record<string, unknown>) => ({ '.dockerconfigjson': JSON.stringify({ auths }) });

describe('credentialsFor', () => {
  const table: [string, Parameters<typeof credentialsFor>[0], string, unknown][] = [
    ['no Secret', undefined, 'r:5000', { type: 'none' }],
    [
      'auth field',
      cfg({ 'r:5000': { auth: b64('ci:pa:ss') } }),
      'r:5000',
      { type: 'basic', username: 'ci', password: 'pa:ss' },
    ],
    [
      'username and password',
      cfg({ 'r:5000': { username: 'u', password: 'p' } }),
      'r:5000',
      { type: 'basic', username: 'u', password: 'p' },
    ],
    [
      'https:// key with a path',
      cfg({ 'https://R:5000/v2/': { auth: b64('u:p') } }),
      'r:5000',
      { type: 'basic', username: 'u', password: 'p' },
    ],
    [
      'docker hub key',
      cfg({ 'https://index.docker.io/v1/': { auth: b64('u:p') } }),
      'docker.io',
      { type: 'basic', username: 'u', password: 'p' },
    ],
    [
      'identity token',
      cfg({ 'r:5000': { identitytoken: 'tok' } }),
      'r:5000',
      { type: 'refresh', token: 'tok' },
    ],
    ['another host only', cfg({ 'other:5000': { auth: b64('u:p') } }), 'r:5000', { type: 'none' }],
    [
      'legacy .dockercfg',
      { '.dockercfg': JSON.stringify({ 'r:5000': { auth: b64('u:p') } }) },
      'r:5000',
      { type: 'basic', username: 'u', password: 'p' },
    ],
    [
      'plain username/password keys',
      { username: 'u', password: 'p' },
      'r:5000',
      { type: 'basic', username: 'u', password: 'p' },
    ],
  ];
  for (const [what, data, host, want] of table) {
    it(what, () => assert.deepEqual(credentialsFor(data, host), want));
  }
  it('says which field is broken, never the secret', () => {
    assert.throws(
      () => credentialsFor({ '.dockerconfigjson': '{not json s3cret' }, 'r'),
      (e: Error) =>
        /spec\.source\.oci\.secretRef: the Secret's \.dockerconfigjson is not JSON/.test(e.message) &&
        !e.message.includes('s3cret'),
    );
    assert.throws(
      () => credentialsFor(cfg({ r: { auth: b64('nocolon') } }), 'r'),
      /not base64 of user:password/,
    );
  });
});

describe('caBundleOf', () => {
  it('reads ca.crt and refuses what is not PEM', () => {
    assert.equal(caBundleOf(undefined), undefined);
    assert.equal(
      caBundleOf({ 'ca.crt': '-----BEGIN CERTIFICATE-----\nx\n' }),
      '-----BEGIN CERTIFICATE-----\nx\n',
    );
    assert.throws(
      () => caBundleOf({ 'ca.crt': 'nope' }),
      /spec\.source\.oci\.certSecretRef: the Secret's ca\.crt is not a PEM/,
    );
  });
});
