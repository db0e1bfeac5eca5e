// Reading the Pods of the namespaces whose workloads are not available, for the health loop's why
// (./health/pod-why.ts, docs/design.md#watched-reads): one LIST per namespace and pass at most, never one
// per entry, and one page of it, so a namespace of many Pods costs a bounded read. The observer reads
// them from a Pod watch of the namespace instead (./target-watches.ts), this only until it has synced.
import type { KubeClient } from '../kube/client.ts';
import { isKubeError } from '../kube/errors.ts';
import { errorMessage } from '../lib/errors.ts';
import { forEachBounded } from '../runtime/index.ts';
import type { PodLike } from './health/pod-why.ts';

/** At most this many Pods of a namespace are read by one LIST. */
export const POD_LIST_LIMIT = 500;
/** Finished Pods (a Job's) say nothing about why a workload is not available. */
export const POD_FIELD_SELECTOR = 'status.phase!=Succeeded';
const CONCURRENCY = 4;

export type PodsRead =
  | { readonly kind: 'pods'; readonly pods: readonly PodLike[] }
  /** The read failed: the why says so rather than nothing. */
  | { readonly kind: 'error'; readonly message: string };

/** The Pods of each namespace; called with [] when no workload needs them (a watch may stop). */
export type ReadPods = (
  client: KubeClient,
  namespaces: readonly string[],
) => Promise<ReadonlyMap<string, PodsRead>>;

/** One LIST page per namespace from the API. */
export const readPods: ReadPods = async (client, namespaces) => {
  const out = new Map<string, PodsRead>();
  await forEachBounded(namespaces, CONCURRENCY, async (namespace) => {
    try {
      const page = await client.listPage<PodLike>(
        { apiVersion: 'v1', kind: 'Pod', namespace },
        { fieldSelector: POD_FIELD_SELECTOR, limit: POD_LIST_LIMIT },
      );
      out.set(namespace, { kind: 'pods', pods: page.items });
    } catch (err) {
      const message = isKubeError(err) ? err.apiMessage : errorMessage(err);
      out.set(namespace, { kind: 'error', message: `Pods not read: ${message}` });
    }
  });
  return out;
};
