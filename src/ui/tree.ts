// The resource tree of a Release page: every object of the render with its live descendants by
// ownerReferences (Deployment → ReplicaSets → Pods, Job → Pods, Service → EndpointSlices), each with a
// one-word state read from its status. During a broken rollout "Degraded: 1 of 3 replicas updated" is
// all the objects table can say; the tree shows the Pod that is not ready and why. Pure.
import type { Involved } from '../kube/events.ts';

/** What the tree needs of a live object (any kind): what an Event names of it, and its owners. */
export interface LiveObject extends Involved {
  readonly metadata: Involved['metadata'] & {
    readonly ownerReferences?: readonly { readonly uid: string }[];
  };
  readonly status?: Readonly<Record<string, unknown>>;
  readonly spec?: Readonly<Record<string, unknown>>;
}

/** An object of the render as the inventory records it, with its live copy when it exists. */
export interface RenderObject {
  readonly group: string;
  /** The API version the inventory records ('' when none). */
  readonly version: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly health: string;
  readonly live?: LiveObject;
  /** Why the live copy could not be read (not the same as missing). */
  readonly readError?: string;
}

export interface TreeNode {
  /** For reading it again (its manifest and Events); '' when not known. */
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** The render's objects carry their health; a child its state read from its status. */
  readonly state: string;
  /** Why, when the status says (a waiting container's reason, replicas ready of desired). */
  readonly detail: string;
  readonly children: readonly TreeNode[];
}

/** Descendants deeper than this are not followed (an ownerReferences cycle must not loop). */
const MAX_DEPTH = 6;

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

interface ContainerStatus {
  readonly ready?: boolean;
  readonly state?: {
    readonly waiting?: { readonly reason?: string };
    readonly terminated?: { readonly reason?: string };
  };
}

/** A live child's state in a word and why, from the status its controller writes. */
export function childState(o: LiveObject): { state: string; detail: string } {
  const s = o.status ?? {};
  switch (o.kind) {
    case 'Pod': {
      const phase = typeof s.phase === 'string' ? s.phase : 'Pending';
      const containers = (Array.isArray(s.containerStatuses) ? s.containerStatuses : []) as ContainerStatus[];
      const why = containers
        .map((c) => c.state?.waiting?.reason ?? c.state?.terminated?.reason)
        .filter((r): r is string => r !== undefined);
      const ready = containers.length > 0 && containers.every((c) => c.ready === true);
      if (phase === 'Running' && !ready) {
        return { state: 'Progressing', detail: why.length > 0 ? why.join(', ') : 'Running, not ready' };
      }
      return { state: phase === 'Running' ? 'Healthy' : phase, detail: why.join(', ') };
    }
    case 'ReplicaSet': {
      const want = num(o.spec?.replicas);
      const ready = num(s.readyReplicas);
      return { state: ready >= want ? 'Healthy' : 'Progressing', detail: `${ready} of ${want} ready` };
    }
    case 'Job': {
      if (num(s.failed) > 0 && s.completionTime === undefined)
        return { state: 'Degraded', detail: `${num(s.failed)} failed` };
      return s.completionTime === undefined
        ? { state: 'Progressing', detail: `${num(s.active)} active` }
        : { state: 'Healthy', detail: `${num(s.succeeded)} succeeded` };
    }
    default:
      return { state: '-', detail: '' };
  }
}

/** Children of each owner uid, sorted by kind then name so the tree does not reorder on each read. */
function byOwner(live: readonly LiveObject[]): Map<string, LiveObject[]> {
  const out = new Map<string, LiveObject[]>();
  for (const o of live) {
    for (const ref of o.metadata.ownerReferences ?? []) {
      const list = out.get(ref.uid) ?? [];
      list.push(o);
      out.set(ref.uid, list);
    }
  }
  for (const list of out.values()) {
    list.sort(
      (a, b) =>
        (a.kind ?? '').localeCompare(b.kind ?? '') ||
        (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
    );
  }
  return out;
}

export function resourceTree(objects: readonly RenderObject[], live: readonly LiveObject[]): TreeNode[] {
  const owners = byOwner(live);
  const childrenOf = (uid: string | undefined, depth: number): TreeNode[] => {
    if (uid === undefined || depth >= MAX_DEPTH) return [];
    return (owners.get(uid) ?? []).map((o) => ({
      apiVersion: o.apiVersion ?? '',
      kind: o.kind ?? '?',
      namespace: o.metadata.namespace ?? '',
      name: o.metadata.name ?? '?',
      ...childState(o),
      children: childrenOf(o.metadata.uid, depth + 1),
    }));
  };
  return objects.map((o) => ({
    apiVersion: o.version === '' ? '' : o.group === '' ? o.version : `${o.group}/${o.version}`,
    kind: o.group === '' ? o.kind : `${o.kind}.${o.group}`,
    namespace: o.namespace,
    name: o.name,
    state: o.live !== undefined ? o.health : o.readError === undefined ? 'Missing' : 'Unknown',
    detail: o.live !== undefined ? '' : (o.readError ?? 'not found in the cluster'),
    children: childrenOf(o.live?.metadata.uid, 0),
  }));
}
