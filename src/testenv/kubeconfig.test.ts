// The kubeconfig we write round-trips, and client-node reads it as we mean it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { parseKubeconfig, renderKubeconfig } from './kubeconfig.ts';

const creds = {
  server: 'https://127.0.0.1:6443',
  caPem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
  token: 'abc123',
};

describe('renderKubeconfig', () => {
  it('round-trips through parseKubeconfig', () => {
    assert.deepEqual(parseKubeconfig(renderKubeconfig('main', creds)), creds);
  });

  it('is what client-node loads: server, CA data, token, current context', () => {
    const kc = new KubeConfig();
    kc.loadFromString(renderKubeconfig('main', creds));
    assert.equal(kc.getCurrentContext(), 'main');
    assert.equal(kc.getCurrentCluster()?.server, creds.server);
    assert.equal(Buffer.from(kc.getCurrentCluster()?.caData ?? '', 'base64').toString(), creds.caPem);
    assert.equal(kc.getCurrentUser()?.token, creds.token);
  });

  it('parseKubeconfig rejects a kubeconfig without a token', () => {
    assert.throws(() => parseKubeconfig('clusters: [{cluster: {server: x}}]'), /lacks/);
  });
});
