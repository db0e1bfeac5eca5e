// Reads the front-proxy (requestheader) settings kube-apiserver publishes in
// kube-system/extension-apiserver-authentication, as real aggregated apiservers do: once at start
// (loadRequestHeaderConfig), and again and again while the server runs (readRequestHeaderConfigMap,
// polled by watch.ts) so a rotated front-proxy CA is followed.
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../kube/client.ts';
import { errorMessage } from '../lib/errors.ts';
import { parseRequestHeaderConfigMap, type RequestHeaderConfig } from './credentials.ts';
import type { TrustRead } from './trust.ts';

export const AUTH_CONFIGMAP = {
  namespace: 'kube-system',
  name: 'extension-apiserver-authentication',
} as const;

/** One read of the ConfigMap; a missing ConfigMap reads as one without requestheader settings. */
export async function readRequestHeaderConfigMap(client: KubeClient): Promise<TrustRead> {
  let cm: { data?: Record<string, string> } | undefined;
  try {
    cm = await client.get<{ data?: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      ...AUTH_CONFIGMAP,
    });
  } catch (err) {
    return { kind: 'failed', message: errorMessage(err) };
  }
  return { kind: 'read', parsed: parseRequestHeaderConfigMap(cm?.data) };
}

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
