// The client of the cluster a Release deploys to: the local one, or a remote Cluster's, built from its
// kubeconfig Secret with the user's rights to read it (the controller's code, loaded only for a remote
// cluster since it needs client-node).
import { API_VERSION } from '../api/constants.ts';
import type { Cluster, Release } from '../api/types.ts';
import type { KubeClient } from '../kube/client.ts';
import { type Ctx, UserError } from './context.ts';

/** The client of the cluster the Release deploys to, with the user's rights to read its Secret. */
export async function targetClient(ctx: Ctx, release: Release): Promise<KubeClient> {
  const name = release.spec.cluster?.name;
  if (name === undefined) return ctx.client;
  const cluster = await ctx.client.get<Cluster>({
    apiVersion: API_VERSION,
    kind: 'Cluster',
    namespace: ctx.namespace,
    name,
  });
  if (cluster === undefined) throw new UserError(`Cluster ${ctx.namespace}/${name} not found`);
  const ref = cluster.spec.kubeconfigSecretRef;
  if (ref === undefined) return ctx.client;
  // The controller's own code reads the kubeconfig Secret; it needs client-node, loaded only here.
  const { ClusterClients } = await import('../controller/cluster/access.ts');
  const access = await new ClusterClients({ kubeConfig: await ctx.fullKubeConfig() }).remote(cluster, ref);
  if (access.kind !== 'ok') throw new UserError(`Cluster ${ctx.namespace}/${name}: ${access.message}`);
  return access.client;
}
