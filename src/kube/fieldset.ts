// Server-Side Apply field sets, computed the way the apiserver records them in managedFields (FieldsV1),
// so a writer can tell without a request whether an apply would change anything it owns.
import type { JsonSchema } from '../api/structural.ts';

/** One leaf path as a string: JSON array of FieldsV1 segments ("f:name", "k:{...}", "v:..."). */
export type FieldPath = string;

const sortKeys = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  );

function keySegment(item: Record<string, unknown>, keys: readonly string[]): string {
  const picked: Record<string, unknown> = {};
  for (const k of keys) if (item[k] !== undefined) picked[k] = item[k];
  return `k:${JSON.stringify(sortKeys(picked))}`;
}

function normalizeSegment(seg: string): string {
  if (!seg.startsWith('k:')) return seg;
  try {
    return `k:${JSON.stringify(sortKeys(JSON.parse(seg.slice(2)) as Record<string, unknown>))}`;
  } catch {
    return seg;
  }
}

/** Leaf paths of a FieldsV1 tree (the "." markers of owned items are not leaves). */
export function parseFieldsV1(fields: unknown, prefix: readonly string[] = []): Set<FieldPath> {
  const out = new Set<FieldPath>();
  const walk = (node: unknown, path: readonly string[]): void => {
    const children = Object.keys((node ?? {}) as object).filter((k) => k !== '.');
    if (children.length === 0) {
      if (path.length > 0) out.add(JSON.stringify(path));
      return;
    }
    for (const child of children)
      walk((node as Record<string, unknown>)[child], [...path, normalizeSegment(child)]);
  };
  walk(fields, prefix);
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Leaf paths an apply of `value` (described by `schema`) makes its manager own. */
export function fieldSetOf(
  value: unknown,
  schema: JsonSchema | undefined,
  prefix: readonly string[] = [],
): Set<FieldPath> {
  const out = new Set<FieldPath>();
  const walk = (v: unknown, s: JsonSchema | undefined, path: readonly string[]): void => {
    if (v === null || v === undefined) return;
    if (Array.isArray(v)) {
      const listType = s?.['x-kubernetes-list-type'];
      const itemSchema = s?.items as JsonSchema | undefined;
      if (listType === 'map') {
        const keys = s?.['x-kubernetes-list-map-keys'] as string[];
        for (const item of v) {
          if (isObject(item)) walk(item, itemSchema, [...path, keySegment(item, keys)]);
        }
      } else if (listType === 'set') {
        for (const item of v) out.add(JSON.stringify([...path, `v:${JSON.stringify(item)}`]));
      } else {
        out.add(JSON.stringify(path));
      }
      return;
    }
    if (isObject(v) && s?.['x-kubernetes-map-type'] !== 'atomic' && Object.keys(v).length > 0) {
      const props = s?.properties as Record<string, JsonSchema> | undefined;
      const additional = s?.additionalProperties as JsonSchema | undefined;
      for (const [k, child] of Object.entries(v)) walk(child, props?.[k] ?? additional, [...path, `f:${k}`]);
      return;
    }
    if (path.length > 0) out.add(JSON.stringify(path));
  };
  walk(value, schema, prefix);
  return out;
}

/** Whether every field of `desired` has the same value in `actual` (list-map items matched by key). */
export function sameAtFields(desired: unknown, actual: unknown, schema: JsonSchema | undefined): boolean {
  if (Array.isArray(desired) && s(schema)['x-kubernetes-list-type'] === 'map') {
    if (!Array.isArray(actual)) return false;
    const keys = s(schema)['x-kubernetes-list-map-keys'] as string[];
    const itemSchema = s(schema).items as JsonSchema | undefined;
    return desired.every((item) => {
      if (!isObject(item)) return false;
      const seg = keySegment(item, keys);
      const match = actual.find((a) => isObject(a) && keySegment(a, keys) === seg);
      return match !== undefined && sameAtFields(item, match, itemSchema);
    });
  }
  if (
    isObject(desired) &&
    s(schema)['x-kubernetes-map-type'] !== 'atomic' &&
    Object.keys(desired).length > 0
  ) {
    if (!isObject(actual)) return false;
    const props = s(schema).properties as Record<string, JsonSchema> | undefined;
    const additional = s(schema).additionalProperties as JsonSchema | undefined;
    return Object.entries(desired).every(
      ([k, v]) => v === undefined || sameAtFields(v, actual[k], props?.[k] ?? additional),
    );
  }
  return deepEqual(desired, actual);
}

const s = (schema: JsonSchema | undefined): JsonSchema => schema ?? {};

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

export function sameSet<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}
