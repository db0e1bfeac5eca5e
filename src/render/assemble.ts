// From a renderer's manifests to a Render: each object checked to be something the API can take,
// namespaced by targetNamespace, checked for duplicates and convoy annotations, hooks split out,
// both lists in canonical order. Shared by every renderer.

import { namespaceOf } from '../lib/names.ts';
import { checkAnnotations, hookOf } from './annotations.ts';
import { sortCanonical } from './canonical.ts';
import { formatOrigin, type Problem } from './errors.ts';
import { describeKey, groupOf, keyString } from './keys.ts';
import { isRecord } from './parse.ts';
import { type Checked, fail, ok } from './result.ts';
import { namespacedOf, resolveNamespace } from './scope.ts';
import type { IsNamespaced, Manifest, Obj, ObjectKey, Origin, Render } from './types.ts';

export type AssembleOptions = {
  readonly targetNamespace?: string;
  readonly isNamespaced?: IsNamespaced;
};

export function assembleRender(
  manifests: readonly Manifest[],
  options: AssembleOptions = {},
): Checked<Render> {
  const problems: Problem[] = [];
  const seen = new Map<string, Origin>();
  const hooks: Obj[] = [];
  const objects: Obj[] = [];
  // The inventory keys hooks by name alone, so two hooks (a Job and a Pod, say) may not share one.
  const hookNames = new Map<string, Origin>();
  for (const { object, origin } of manifests) {
    const shape = checkShape(object);
    if (typeof shape === 'string') {
      problems.push({ where: formatOrigin(origin), message: shape });
      continue;
    }
    const obj = withNamespace(
      shape,
      namespacedOf(options.isNamespaced, shape.apiVersion, shape.kind),
      options.targetNamespace,
    );
    const key: ObjectKey = {
      group: groupOf(obj.apiVersion),
      kind: obj.kind,
      namespace: namespaceOf(obj),
      name: obj.metadata.name,
    };
    const where = `${describeKey(key)} (${formatOrigin(origin)})`;
    const first = seen.get(keyString(key));
    if (first !== undefined) {
      problems.push({
        where: describeKey(key),
        message: `defined twice, in ${formatOrigin(first)} and in ${formatOrigin(origin)}`,
      });
      continue;
    }
    seen.set(keyString(key), origin);
    const annotations = obj.metadata.annotations ?? {};
    const bad = checkAnnotations(key, annotations);
    if (bad.length > 0) {
      for (const message of bad) problems.push({ where, message });
      continue;
    }
    if (hookOf(annotations) === undefined) {
      objects.push(obj);
      continue;
    }
    const sameName = hookNames.get(obj.metadata.name);
    if (sameName !== undefined) {
      problems.push({
        where,
        message: `hook name ${obj.metadata.name} is also used by the hook in ${formatOrigin(sameName)}; hook names must be unique within a release`,
      });
      continue;
    }
    hookNames.set(obj.metadata.name, origin);
    hooks.push(obj);
  }
  if (problems.length > 0) return fail(problems);
  return ok({ hooks: sortCanonical(hooks), objects: sortCanonical(objects) });
}

const NAME_FORBIDDEN = /[/%]/;

/** The object typed as Obj, or what keeps it from being one. */
function checkShape(o: Readonly<Record<string, unknown>>): Obj | string {
  if (typeof o.apiVersion !== 'string' || o.apiVersion === '') return 'apiVersion is missing';
  if (typeof o.kind !== 'string' || o.kind === '') return 'kind is missing';
  if (o.kind.includes('/')) return `kind ${JSON.stringify(o.kind)} is invalid`;
  const kind = o.kind;
  const md = o.metadata;
  if (!isRecord(md)) return `${kind}: metadata is missing`;
  if (typeof md.name !== 'string' || md.name === '') {
    return md.generateName === undefined
      ? `${kind}: metadata.name is missing`
      : `${kind}: metadata.generateName is not supported, set metadata.name`;
  }
  if (NAME_FORBIDDEN.test(md.name) || md.name === '.' || md.name === '..') {
    return `${kind}: metadata.name ${JSON.stringify(md.name)} is invalid`;
  }
  if (md.namespace !== undefined && md.namespace !== null && typeof md.namespace !== 'string') {
    return `${kind} ${md.name}: metadata.namespace must be a string`;
  }
  if (typeof md.namespace === 'string' && NAME_FORBIDDEN.test(md.namespace)) {
    return `${kind} ${md.name}: metadata.namespace ${JSON.stringify(md.namespace)} is invalid`;
  }
  for (const field of ['labels', 'annotations'] as const) {
    const map = md[field];
    if (map === undefined || map === null) continue;
    if (!isRecord(map)) return `${kind} ${md.name}: metadata.${field} must be a map`;
    for (const [k, v] of Object.entries(map)) {
      if (typeof v !== 'string') {
        return `${kind} ${md.name}: metadata.${field}.${k} must be a string, not ${JSON.stringify(v)} (quote it)`;
      }
    }
  }
  return o as Obj;
}

/** A copy whose metadata.namespace is what the object will live in (none when cluster-scoped). */
function withNamespace(obj: Obj, namespaced: boolean, targetNamespace: string | undefined): Obj {
  const own = obj.metadata.namespace ?? undefined; // YAML `namespace:` (null) counts as none
  const ns = resolveNamespace(namespaced, own, targetNamespace);
  if (ns === own && (ns !== undefined || !('namespace' in obj.metadata))) return obj;
  const { namespace: _, ...rest } = obj.metadata;
  return { ...obj, metadata: ns === undefined ? rest : { ...rest, namespace: ns } } as Obj;
}
