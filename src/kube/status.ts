// The status writer: Server-Side Apply to the /status subresource under one field manager, skipped when the
// cached object already holds exactly these fields with these values under that manager — so a steady
// reconcile writes nothing (docs/design.md#status-assembly: times change only when what they describe
// changes).
import { API_VERSION } from '../api/constants.ts';
import { statusSchemaOf } from '../api/crds.ts';
import type { JsonSchema } from '../api/structural.ts';
import type { KubeObject, ObjectHeader } from '../api/types.ts';
import { applyObject, preconditionsOf } from './apply.ts';
import type { KubeClient } from './client.ts';
import { fieldSetOf, parseFieldsV1, sameAtFields, sameSet } from './fieldset.ts';

export interface StatusTarget {
  readonly apiVersion?: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
}

export interface StatusWriteOptions {
  readonly fieldManager: string;
  /** The object as the informer cache has it; undefined always writes. */
  readonly cached?: ObjectHeader & { readonly status?: unknown };
  /**
   * Default true: each manager is the only writer of the fields it sends (docs/design.md#field-ownership).
   */
  readonly force?: boolean;
  /**
   * Send the cached uid and resourceVersion as preconditions: the write fails with 409 Conflict when the
   * object changed since it was read, so a status built from an old read never lands over a newer one.
   */
  readonly precondition?: boolean;
}

export type StatusWriteResult<T> =
  | { readonly written: false }
  | { readonly written: true; readonly object: T };

/**
 * True when applying `status` as `fieldManager` would change nothing: the cached values are equal and the
 * manager owns exactly these fields (dropping a field it owned is a change: the apply removes it).
 */
export function statusUpToDate(
  cached: (ObjectHeader & { readonly status?: unknown }) | undefined,
  status: Readonly<Record<string, unknown>>,
  fieldManager: string,
  schema: JsonSchema | undefined,
): boolean {
  if (cached === undefined) return false;
  if (!sameAtFields(status, cached.status, schema)) return false;
  const entry = (cached.metadata.managedFields ?? []).find(
    (m) => m.manager === fieldManager && m.operation === 'Apply' && m.subresource === 'status',
  );
  const owned = parseFieldsV1((entry?.fieldsV1 as Record<string, unknown> | undefined)?.['f:status']);
  return sameSet(owned, fieldSetOf(status, schema));
}

/** Applies `status` to the /status subresource unless statusUpToDate says it would change nothing. */
export async function writeStatus<T extends ObjectHeader>(
  client: KubeClient,
  target: StatusTarget,
  status: Readonly<Record<string, unknown>>,
  options: StatusWriteOptions,
): Promise<StatusWriteResult<T>> {
  if (statusUpToDate(options.cached, status, options.fieldManager, statusSchemaOf(target.kind))) {
    return { written: false };
  }
  const body: KubeObject = {
    apiVersion: target.apiVersion ?? API_VERSION,
    kind: target.kind,
    metadata: {
      name: target.name,
      ...(target.namespace === undefined ? {} : { namespace: target.namespace }),
    },
    status: structuredClone(status),
  };
  const object = await applyObject<T>(client, body as unknown as T, {
    fieldManager: options.fieldManager,
    force: options.force ?? true,
    subresource: 'status',
    ...(options.precondition === true && options.cached !== undefined ? preconditionsOf(options.cached) : {}),
  });
  return { written: true, object };
}
