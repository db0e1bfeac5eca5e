// Cluster: a target cluster reachable through a kubeconfig Secret (none: the cluster convoy runs in).
import { type Static, Type } from 'typebox';
import { SecretKeyRefSchema, StatusHead } from './common.ts';

export const ClusterSpecSchema = Type.Object({
  kubeconfigSecretRef: Type.Optional(SecretKeyRefSchema),
  shard: Type.Optional(
    Type.Integer({
      format: 'int32',
      minimum: 0,
      description: 'Shard that works this cluster; default: a stable hash of namespace/name.',
    }),
  ),
  wave: Type.Optional(
    Type.Integer({
      format: 'int32',
      description: 'Cluster wave: Releases on later waves wait for earlier ones.',
    }),
  ),
  paused: Type.Optional(Type.Boolean({ description: 'Stop every sync to this cluster.' })),
});
export type ClusterSpec = Static<typeof ClusterSpecSchema>;

export const ClusterStatusSchema = Type.Object({
  ...StatusHead(),
  serverVersion: Type.Optional(
    Type.String({ maxLength: 64, description: 'gitVersion reported by /version.' }),
  ),
});
export type ClusterStatus = Static<typeof ClusterStatusSchema>;
