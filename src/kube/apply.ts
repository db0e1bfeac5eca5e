// Server-Side Apply, used by every convoy writer: the raw JSON body goes out unchanged (unknown fields and
// integers survive), read-only metadata is stripped, and the cached uid/resourceVersion can be sent as
// preconditions so that an apply from a stale cache never re-creates an object someone deleted.
//
// Measured on kube-apiserver v1.36.3: a resourceVersion in an apply body is checked only against an
// existing object (409 when it changed); when the object is gone the apply CREATES it anyway. A uid in
// the body is what stops that: 409 "uid mismatch ... no existing object was found".
import type { ObjectHeader } from '../api/types.ts';
import type { KubeClient } from './client.ts';

export interface ApplyOptions {
  readonly fieldManager: string;
  /** Take over fields another manager owns. Use only for fields this manager is meant to own. */
  readonly force?: boolean;
  /**
   * Sent as metadata.resourceVersion: the apply fails with 409 Conflict if the object changed since.
   * Alone it does NOT stop an apply from re-creating a deleted object; uidPrecondition does.
   */
  readonly resourceVersionPrecondition?: string;
  /**
   * Sent as metadata.uid: the apply fails with 409 Conflict unless this very object (not a deleted one,
   * not a newer one of the same name) exists, so it can never create the object.
   */
  readonly uidPrecondition?: string;
  readonly dryRun?: boolean;
  /** 'status' applies to the status subresource. */
  readonly subresource?: 'status';
}

/** Metadata the server owns; sending it back is at best ignored and at worst a precondition. */
const READ_ONLY_METADATA = [
  'managedFields',
  'resourceVersion',
  'uid',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'selfLink',
] as const;

/**
 * The body of an apply: a copy of `obj` without server-owned metadata (and without status unless the
 * status subresource is the target), with the precondition added when given.
 */
export function applyBody<T extends ObjectHeader>(
  obj: T,
  options: Pick<ApplyOptions, 'resourceVersionPrecondition' | 'uidPrecondition' | 'subresource'>,
): T {
  const { metadata, status, ...rest } = obj as ObjectHeader & { status?: unknown };
  const meta: Record<string, unknown> = { ...metadata };
  for (const key of READ_ONLY_METADATA) delete meta[key];
  if (options.resourceVersionPrecondition !== undefined)
    meta.resourceVersion = options.resourceVersionPrecondition;
  if (options.uidPrecondition !== undefined) meta.uid = options.uidPrecondition;
  const body: Record<string, unknown> = { ...rest, metadata: meta };
  if (options.subresource === 'status' && status !== undefined) body.status = status;
  return structuredClone(body) as T;
}

/** Applies `obj` and returns the object the server stored. Throws KubeApiError. */
export async function applyObject<T extends ObjectHeader>(
  client: KubeClient,
  obj: T,
  options: ApplyOptions,
): Promise<T> {
  const name = obj.metadata.name;
  if (name === undefined || name === '') throw new Error(`apply ${obj.kind}: metadata.name is required`);
  const path = await client.pathOf(
    { apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace, name },
    options.subresource,
  );
  return client.request<T>({
    method: 'PATCH',
    path,
    contentType: 'application/apply-patch+yaml',
    body: applyBody(obj, options),
    query: {
      fieldManager: options.fieldManager,
      force: options.force === true ? 'true' : undefined,
      dryRun: options.dryRun === true ? 'All' : undefined,
    },
  });
}

/** Preconditions from a cached object: the apply updates exactly that object as cached, or fails with 409. */
export function preconditionsOf(
  cached: ObjectHeader,
): Pick<ApplyOptions, 'uidPrecondition' | 'resourceVersionPrecondition'> {
  return {
    uidPrecondition: cached.metadata.uid,
    resourceVersionPrecondition: cached.metadata.resourceVersion,
  };
}

/** Only-if-exists: the uid of the cached object, so the apply can update but never (re-)create. */
export function existingOnly(cached: ObjectHeader): Pick<ApplyOptions, 'uidPrecondition'> {
  return { uidPrecondition: cached.metadata.uid };
}
