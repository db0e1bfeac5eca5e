// Reads what the resource tree (tree.ts) needs, with the user's own client: each object of the render
// the inventory records, and the Pods, ReplicaSets, Jobs and EndpointSlices of their namespaces, which
// may be their descendants. A list the user may not make is a note on the page, not an empty tree.
import type { Release, ReleaseInventory } from '../api/types.ts';
import type { KubeClient } from '../kube/client.ts';
import { isKubeError } from '../kube/errors.ts';
import { errorMessage } from '../lib/errors.ts';
import { type KubeEvent, type LiveObjectView, liveObjectView } from './live-object.ts';
import { type LiveObject, type RenderObject, resourceTree, type TreeNode } from './tree.ts';

export interface TreeResult {
  readonly nodes: readonly TreeNode[];
  /** What could not be read, in a sentence each (a kind the user may not list, say). */
  readonly notes: readonly string[];
}

/** Bounds on one read: a render of thousands of objects gets its first ones, and says so. */
const MAX_OBJECTS = 200;
const MAX_NAMESPACES = 10;

const CHILD_KINDS = [
  { apiVersion: 'v1', kind: 'Pod' },
  { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
  { apiVersion: 'batch/v1', kind: 'Job' },
  { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' },
] as const;

const why = (err: unknown) =>
  isKubeError(err) && err.code === 403 ? `forbidden: ${err.apiMessage}` : errorMessage(err);

export async function readTree(
  client: KubeClient,
  r: Release,
  inv: ReleaseInventory | undefined,
): Promise<TreeResult> {
  if (r.spec.cluster !== undefined) {
    return {
      nodes: [],
      notes: [
        `its objects live in Cluster ${r.spec.cluster.name}: the tree reads only the cluster convoy runs in`,
      ],
    };
  }
  const notes: string[] = [];
  const all = inv?.entries ?? [];
  const entries = all.slice(0, MAX_OBJECTS);
  if (all.length > entries.length) notes.push(`the first ${MAX_OBJECTS} of ${all.length} objects are shown`);
  const namespaces = [...new Set(entries.map((e) => e.namespace).filter((n) => n !== ''))].sort();
  if (namespaces.length > MAX_NAMESPACES)
    notes.push(`descendants are read in ${MAX_NAMESPACES} of ${namespaces.length} namespaces`);
  const lists = await Promise.all(
    namespaces.slice(0, MAX_NAMESPACES).flatMap((namespace) =>
      CHILD_KINDS.map(async (k) => {
        try {
          // The items of a list carry no kind and API version of their own.
          return (await client.list<LiveObject>({ ...k, namespace })).map((o) => ({ ...o, ...k }));
        } catch (err) {
          notes.push(`cannot list ${k.kind}s in namespace ${namespace}: ${why(err)}`);
          return [];
        }
      }),
    ),
  );
  const objects: RenderObject[] = await Promise.all(
    entries.map(async (e) => {
      const base = {
        group: e.group,
        version: e.version ?? '',
        kind: e.kind,
        namespace: e.namespace,
        name: e.name,
        health: e.state ?? 'Unknown',
      };
      if (e.version === undefined)
        return { ...base, readError: 'the inventory records no API version for it' };
      try {
        const live = await client.get<LiveObject>({
          apiVersion: e.group === '' ? e.version : `${e.group}/${e.version}`,
          kind: e.kind,
          ...(e.namespace === '' ? {} : { namespace: e.namespace }),
          name: e.name,
        });
        return live === undefined ? base : { ...base, live };
      } catch (err) {
        return { ...base, readError: `cannot read it: ${why(err)}` };
      }
    }),
  );
  return { nodes: resourceTree(objects, lists.flat()), notes };
}

/** A node of the tree the page asks about: how to read it again. */
export interface NodeRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

export type LiveRead =
  | { readonly kind: 'found'; readonly view: LiveObjectView; readonly notes: readonly string[] }
  | { readonly kind: 'notInTree'; readonly message: string }
  | { readonly kind: 'gone'; readonly message: string };

/**
 * Why the tree cannot show `ref` (a kind neither of the render nor of CHILD_KINDS, or a namespace the
 * render has no object in), else undefined: the bound of every read a page asks for by name.
 */
export function outsideTree(
  inv: ReleaseInventory | undefined,
  ref: Pick<NodeRef, 'kind' | 'namespace' | 'name'>,
): string | undefined {
  const entries = inv?.entries ?? [];
  const namespaces = new Set(entries.map((e) => e.namespace));
  const kinds = new Set([...entries.map((e) => e.kind), ...CHILD_KINDS.map((k) => k.kind)]);
  return namespaces.has(ref.namespace) && kinds.has(ref.kind)
    ? undefined
    : `${ref.kind} ${ref.namespace}/${ref.name} is not part of this Release's tree`;
}

/**
 * One object of the tree, with its Events, read as the user. Only what the tree can show is read: a
 * kind of the render or of CHILD_KINDS, in a namespace of the render.
 */
export async function readLiveObject(
  client: KubeClient,
  inv: ReleaseInventory | undefined,
  ref: NodeRef,
): Promise<LiveRead> {
  const outside = outsideTree(inv, ref);
  if (outside !== undefined) return { kind: 'notInTree', message: outside };
  const at = {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    ...(ref.namespace === '' ? {} : { namespace: ref.namespace }),
  };
  const obj = await client.get<LiveObject & Record<string, unknown>>({ ...at, name: ref.name });
  if (obj === undefined)
    return { kind: 'gone', message: `${ref.kind} ${ref.name} is not in the cluster (any more)` };
  const notes: string[] = [];
  let events: KubeEvent[] = [];
  const uid = obj.metadata.uid;
  if (uid !== undefined && ref.namespace !== '') {
    try {
      events = await client.list<KubeEvent>(
        { apiVersion: 'v1', kind: 'Event', namespace: ref.namespace },
        { fieldSelector: `involvedObject.uid=${uid}` },
      );
    } catch (err) {
      notes.push(`cannot list Events in namespace ${ref.namespace}: ${why(err)}`);
    }
  }
  return { kind: 'found', view: liveObjectView(obj, events), notes };
}
