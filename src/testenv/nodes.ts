// The simulated Node objects kwok takes over, and when such a node can run pods.

export interface NodeLike {
  readonly metadata: { readonly name: string };
  readonly spec?: { readonly taints?: readonly { readonly key: string; readonly effect: string }[] };
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string }[] };
}

export const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';

export function nodeManifest(name: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        type: 'kwok',
      },
      // Marks the node as fake for kwok setups that select by annotation (kwokctl, dashboards).
      annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: {},
  };
}

/** Ready and without the not-ready taint: what the scheduler needs to place pods there. */
export function nodeSchedulable(node: NodeLike): boolean {
  const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  const tainted = node.spec?.taints?.some((t) => t.key === NOT_READY_TAINT) ?? false;
  return ready && !tainted;
}
