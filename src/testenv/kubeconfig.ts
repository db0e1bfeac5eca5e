// The admin kubeconfig the control plane hands out: one cluster, one token user, one context.
import { parse, stringify } from 'yaml';

export interface ClusterCredentials {
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** PEM of the apiserver's self-signed serving cert (and its CA), trusted as the cluster CA. */
  readonly caPem: string;
  /** Bearer token of a system:masters user. */
  readonly token: string;
}

export function renderKubeconfig(name: string, c: ClusterCredentials): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name,
        cluster: { server: c.server, 'certificate-authority-data': Buffer.from(c.caPem).toString('base64') },
      },
    ],
    users: [{ name: 'admin', user: { token: c.token } }],
    contexts: [{ name, context: { cluster: name, user: 'admin' } }],
    'current-context': name,
  });
}

/** Reads server, CA and token back from a kubeconfig written by renderKubeconfig. */
export function parseKubeconfig(text: string): ClusterCredentials {
  const doc = parse(text) as {
    clusters?: { cluster?: { server?: string; 'certificate-authority-data'?: string } }[];
    users?: { user?: { token?: string } }[];
  };
  const cluster = doc.clusters?.[0]?.cluster;
  const token = doc.users?.[0]?.user?.token;
  if (!cluster?.server || !cluster['certificate-authority-data'] || !token) {
    throw new Error('kubeconfig lacks server, certificate-authority-data or token');
  }
  return {
    server: cluster.server,
    caPem: Buffer.from(cluster['certificate-authority-data'], 'base64').toString(),
    token,
  };
}
