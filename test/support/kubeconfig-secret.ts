// The Secret a Cluster's spec.kubeconfigSecretRef names (docs/design.md#fleets): a kubeconfig's text under
// the key `kubeconfig`. One writer for every e2e file and fixture that points a Cluster at an apiserver.
import { applyObject } from '../../src/kube/apply.ts';
import type { KubeClient } from '../../src/kube/client.ts';

/** Applies (creates or replaces) the kubeconfig Secret `namespace/name` holding `kubeconfig`. */
export async function applyKubeconfigSecret(
  client: KubeClient,
  namespace: string,
  name: string,
  kubeconfig: string,
): Promise<void> {
  await applyObject(
    client,
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace },
      data: { kubeconfig: Buffer.from(kubeconfig).toString('base64') },
    },
    { fieldManager: 'convoy-test', force: true },
  );
}
