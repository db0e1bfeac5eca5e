// Reads the front-proxy (requestheader) settings kube-apiserver publishes in
// kube-system/extension-apiserver-authentication, as real aggregated apiservers do at start.
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../kube/client.ts';
import { parseRequestHeaderConfigMap, type RequestHeaderConfig } from './credentials.ts';

export const AUTH_CONFIGMAP = {
  namespace: 'kube-system',
  name: 'extension-apiserver-authentication',
} as const;

/** undefined when the apiserver runs no front proxy (no requestheader-client-ca-file published). */
export async function loadRequestHeaderConfig(
  kubeConfig: KubeConfig,
): Promise<RequestHeaderConfig | undefined> {
  const cm = await new KubeClient(kubeConfig).get<{ data?: Record<string, string> }>({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    ...AUTH_CONFIGMAP,
  });
  const parsed = parseRequestHeaderConfigMap(cm?.data);
  if (!parsed.ok) throw new Error(`${AUTH_CONFIGMAP.namespace}/${AUTH_CONFIGMAP.name}: ${parsed.message}`);
  return parsed.value;
}
