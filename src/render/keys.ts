// Identity of objects in a render: the key the inventory and prune use, and the sync wave.
import { ANNOTATION_SYNC_WAVE } from '../api/constants.ts';
import type { InventoryKey } from '../api/types.ts';
import { namespaceOf } from '../lib/names.ts';
import type { Obj, ObjectKey } from './types.ts';

/** "apps/v1" → "apps", "v1" → "" (the core group). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * The apiVersion of a group and version as an inventory entry records them: "" + "v1" → "v1",
 * "apps" + "v1" → "apps/v1"; an entry written before versions were recorded reads as v1 of its group.
 */
export function apiVersionOf(e: { readonly group: string; readonly version?: string | undefined }): string {
  const version = e.version === undefined || e.version === '' ? 'v1' : e.version;
  return e.group === '' ? version : `${e.group}/${version}`;
}

/** The API reference of an inventory entry, for a GET or DELETE of its live object. */
export function entryRef(e: InventoryKey & { readonly version?: string | undefined }) {
  return {
    apiVersion: apiVersionOf(e),
    kind: e.kind,
    name: e.name,
    ...(e.namespace === '' ? {} : { namespace: e.namespace }),
  };
}

export function objectKey(obj: Obj): ObjectKey {
  return {
    group: groupOf(obj.apiVersion),
    kind: obj.kind,
    namespace: namespaceOf(obj),
    name: obj.metadata.name,
  };
}

/** "group/kind/namespace/name" (src/api/keys.ts). */
export { inventoryKeyOf as keyString } from '../api/keys.ts';

/** For people: "Deployment.apps prod/web", "ConfigMap prod/settings", "Namespace prod". */
export function describeKey(key: ObjectKey): string {
  const kind = key.group === '' ? key.kind : `${key.kind}.${key.group}`;
  return key.namespace === '' ? `${kind} ${key.name}` : `${kind} ${key.namespace}/${key.name}`;
}

const WAVE = /^[+-]?[0-9]{1,15}$/;

/** The integer of a sync-wave annotation value, or undefined when it is not one. */
export function parseWave(value: string): number | undefined {
  return WAVE.test(value) ? Number(value) : undefined;
}

/**
 * The object's sync wave: its annotation, 0 without one. Renders are validated when they are made,
 * so an invalid value here is a bug, not user input.
 */
export function waveOf(obj: Obj): number {
  const value = obj.metadata.annotations?.[ANNOTATION_SYNC_WAVE];
  if (value === undefined) return 0;
  const wave = parseWave(value);
  if (wave === undefined) throw new RangeError(`invalid ${ANNOTATION_SYNC_WAVE} ${JSON.stringify(value)}`);
  return wave;
}
