// Test support shared by the layers above: a KubeConfig that points at nothing (a closed loopback port),
// for clients and informers built in unit tests that must never reach a server.
import { KubeConfig } from '@kubernetes/client-node';

export function unreachableKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}
