// The valuesFrom reader over a Kubernetes client, as helmRenderInputs takes it: a ConfigMap's data as it
// is, a Secret's decoded. One reader for the controller (its own rights in the Release's namespace) and
// for `convoy render`/`convoy diff` against a cluster, so both read the same values.
import type { KubeClient } from '../../kube/client.ts';
import { credentialsFromSecretData } from '../source.ts';
import type { ReadValuesObject } from './inputs.ts';

export function valuesFromClient(client: KubeClient): ReadValuesObject {
  return async (kind, namespace, name) => {
    const obj = await client.get<{ data?: Record<string, string> }>({
      apiVersion: 'v1',
      kind,
      namespace,
      name,
    });
    if (obj === undefined) return undefined;
    return kind === 'Secret' ? credentialsFromSecretData(obj.data) : (obj.data ?? {});
  };
}
