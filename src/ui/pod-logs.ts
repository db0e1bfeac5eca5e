// The log of one container of a Pod in a Release's tree, read as the user through the pods/log API
// (kube-apiserver asks the node's kubelet; in the local control plane kwok serves it). Bounded: the
// last lines only, at most LIMIT_BYTES, within a timeout. The page follows a log by reading it again.
import type { ReleaseInventory } from '../api/types.ts';
import type { KubeClient } from '../kube/client.ts';
import { outsideTree } from './tree-read.ts';

/** At most this many of the last lines, and this many bytes, per read. */
export const MAX_TAIL_LINES = 2000;
export const DEFAULT_TAIL_LINES = 500;
const LIMIT_BYTES = 256 * 1024;
const TIMEOUT_MS = 15_000;

export interface PodLogsRef {
  readonly namespace: string;
  readonly name: string;
  /** Unset: the Pod's first container. */
  readonly container?: string;
  readonly tailLines: number;
}

export interface PodLogs {
  readonly pod: string;
  readonly container: string;
  /** Every container of the Pod, init containers first: what the page offers to choose. */
  readonly containers: readonly string[];
  readonly lines: readonly string[];
}

export type PodLogsRead =
  | { readonly kind: 'found'; readonly logs: PodLogs }
  | { readonly kind: 'notFound'; readonly message: string }
  | { readonly kind: 'badRequest'; readonly message: string };

interface PodSpecNames {
  readonly spec?: {
    readonly initContainers?: readonly { readonly name: string }[];
    readonly containers?: readonly { readonly name: string }[];
  };
}

/** The last lines of one container's log; only a Pod in a namespace of the render is read. */
export async function readPodLogs(
  client: KubeClient,
  inv: ReleaseInventory | undefined,
  ref: PodLogsRef,
): Promise<PodLogsRead> {
  const outside = outsideTree(inv, { kind: 'Pod', namespace: ref.namespace, name: ref.name });
  if (outside !== undefined) return { kind: 'notFound', message: outside };
  const pod = await client.get<PodSpecNames>({
    apiVersion: 'v1',
    kind: 'Pod',
    namespace: ref.namespace,
    name: ref.name,
  });
  if (pod === undefined)
    return { kind: 'notFound', message: `Pod ${ref.name} is not in the cluster (any more)` };
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map(
    (c) => c.name,
  );
  const container = ref.container ?? pod.spec?.containers?.[0]?.name;
  if (container === undefined || !containers.includes(container)) {
    return {
      kind: 'badRequest',
      message: `Pod ${ref.name} has no container ${JSON.stringify(container ?? '')}; its containers: ${containers.join(', ') || 'none'}`,
    };
  }
  const podPath = await client.pathOf({
    apiVersion: 'v1',
    kind: 'Pod',
    namespace: ref.namespace,
    name: ref.name,
  });
  const text = await client.transport.requestText({
    method: 'GET',
    path: `${podPath}/log`,
    query: { container, tailLines: String(ref.tailLines), limitBytes: String(LIMIT_BYTES) },
    // text/plain alone is refused (406) by the API server's content negotiation; kubectl sends this.
    accept: 'application/json, */*',
    timeoutMs: TIMEOUT_MS,
  });
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return { kind: 'found', logs: { pod: ref.name, container, containers, lines } };
}
