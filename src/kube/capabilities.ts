// The target cluster's version and API group versions, as Helm's .Capabilities shows them
// (helm template --kube-version / --api-versions), from discovery. Remembered for a minute per
// client: a reconcile renders often, a cluster's APIs change rarely.
import type { KubeClient } from './client.ts';

export type ClusterCapabilities = {
  readonly kubeVersion: string;
  readonly apiVersions: readonly string[];
};

const TTL_MS = 60_000;
const memo = new WeakMap<KubeClient, { at: number; value: Promise<ClusterCapabilities> }>();

export function clusterCapabilities(
  client: KubeClient,
  now: number = Date.now(),
): Promise<ClusterCapabilities> {
  const hit = memo.get(client);
  if (hit !== undefined && now - hit.at < TTL_MS) return hit.value;
  const value = discover(client);
  memo.set(client, { at: now, value });
  value.catch(() => memo.delete(client));
  return value;
}

async function discover(client: KubeClient): Promise<ClusterCapabilities> {
  const [version, core, groups] = await Promise.all([
    client.request<{ gitVersion?: string }>({ method: 'GET', path: '/version' }),
    client.request<{ versions?: string[] }>({ method: 'GET', path: '/api' }),
    client.request<{ groups?: { versions?: { groupVersion: string }[] }[] }>({
      method: 'GET',
      path: '/apis',
    }),
  ]);
  const apiVersions = [
    ...(core.versions ?? []),
    ...(groups.groups ?? []).flatMap((g) => (g.versions ?? []).map((v) => v.groupVersion)),
  ].sort();
  return { kubeVersion: version.gitVersion ?? '', apiVersions };
}
