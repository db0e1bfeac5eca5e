// Event filters: predicates over (old, new) objects deciding whether an update should enqueue.
// Controllers build their "only fields the controller-manager owns" checks from changed().
import { isDeepStrictEqual } from 'node:util';

/**
 * An object as the harness holds it — looser than src/api's KubeObject on purpose: items of a LIST come
 * without apiVersion and kind, and the runtime works any kind without knowing its schema.
 */
export type KubeObject = {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly generation?: number;
    readonly resourceVersion?: string;
    readonly deletionTimestamp?: string;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly labels?: Readonly<Record<string, string>>;
    readonly [k: string]: unknown;
  };
  readonly [k: string]: unknown;
};

/** Decides whether an update from old to new is worth a reconcile. */
export type UpdateFilter<T> = (oldObj: T, newObj: T) => boolean;

/** True when the projection differs (deep equality), e.g. changed((o) => o.spec). */
export function changed<T>(project: (obj: T) => unknown): UpdateFilter<T> {
  return (o, n) => !isDeepStrictEqual(project(o), project(n));
}

export const generationChanged: UpdateFilter<KubeObject> = (o, n) =>
  o.metadata?.generation !== n.metadata?.generation;

export const deletionStarted: UpdateFilter<KubeObject> = (o, n) =>
  o.metadata?.deletionTimestamp === undefined && n.metadata?.deletionTimestamp !== undefined;

export const annotationsChanged: UpdateFilter<KubeObject> = changed((o) => o.metadata?.annotations ?? {});

export const labelsChanged: UpdateFilter<KubeObject> = changed((o) => o.metadata?.labels ?? {});

/** Only annotations changed: everything but metadata.annotations/resourceVersion/managedFields equal. */
export const annotationOnly: UpdateFilter<KubeObject> = (o, n) =>
  annotationsChanged(o, n) && isDeepStrictEqual(withoutVolatile(o, true), withoutVolatile(n, true));

/** Only status (or only bookkeeping) changed: generation-less objects need this instead of generationChanged. */
export const statusOnly: UpdateFilter<KubeObject> = (o, n) =>
  !isDeepStrictEqual(o.status, n.status) &&
  isDeepStrictEqual(
    withoutVolatile({ ...o, status: undefined }, false),
    withoutVolatile({ ...n, status: undefined }, false),
  );

/** A resync delivers the same object twice (same resourceVersion). */
export const isResync: UpdateFilter<KubeObject> = (o, n) =>
  o.metadata?.resourceVersion !== undefined && o.metadata?.resourceVersion === n.metadata?.resourceVersion;

export function anyOf<T>(...fs: ReadonlyArray<UpdateFilter<T>>): UpdateFilter<T> {
  return (o, n) => fs.some((f) => f(o, n));
}

export function allOf<T>(...fs: ReadonlyArray<UpdateFilter<T>>): UpdateFilter<T> {
  return (o, n) => fs.every((f) => f(o, n));
}

export function not<T>(f: UpdateFilter<T>): UpdateFilter<T> {
  return (o, n) => !f(o, n);
}

function withoutVolatile(obj: KubeObject, dropAnnotations: boolean): unknown {
  const { resourceVersion: _rv, managedFields: _mf, annotations, ...meta } = obj.metadata ?? {};
  return { ...obj, metadata: dropAnnotations ? meta : { ...meta, annotations } };
}
