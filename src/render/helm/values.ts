// render.helm.valuesFrom, as Flux's HelmRelease reads it: a ConfigMap's or Secret's key holds YAML
// values (merged), or, with targetPath, one value set at a dotted path as a string. Pure: the caller
// reads the objects and hands in their decoded data. A values text never appears in a message (it
// may come from a Secret).
import { parse } from 'yaml';
import type { Problem } from '../errors.ts';
import { type Checked, fail, ok } from '../result.ts';
import type { ValuesReference } from '../types.ts';

export const DEFAULT_VALUES_KEY = 'values.yaml';

export type Values = Readonly<Record<string, unknown>>;

/** Where a valuesFrom entry is, for messages: "spec.render.helm.valuesFrom[1] (Secret web/db)". */
export function describeRef(ref: ValuesReference, index: number, namespace: string): string {
  return `spec.render.helm.valuesFrom[${index}] (${ref.kind} ${namespace}/${ref.name})`;
}

/**
 * The values of one entry. `data` is the object's data (undefined: no such object); an optional
 * entry whose object or key is missing gives undefined.
 */
export function valuesOf(
  ref: ValuesReference,
  index: number,
  namespace: string,
  data: Readonly<Record<string, string>> | undefined,
): Checked<Values | undefined> {
  const where = describeRef(ref, index, namespace);
  const key = ref.valuesKey ?? DEFAULT_VALUES_KEY;
  if (data === undefined) {
    return ref.optional === true ? ok(undefined) : fail([{ where, message: `${ref.kind} not found` }]);
  }
  const text = data[key];
  if (text === undefined) {
    return ref.optional === true ? ok(undefined) : fail([{ where, message: `key ${key} not found` }]);
  }
  if (ref.targetPath !== undefined) return ok(atPath(ref.targetPath, text));
  let parsed: unknown;
  try {
    parsed = parse(text, { maxAliasCount: 1000 });
  } catch (err) {
    const line = (err as { linePos?: { line: number }[] }).linePos?.[0]?.line;
    return fail([
      { where, message: `key ${key} is not valid YAML${line === undefined ? '' : ` (line ${line})`}` },
    ]);
  }
  if (parsed === null || parsed === undefined) return ok({});
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    return fail([{ where, message: `key ${key} must hold a map of values` }]);
  }
  return ok(parsed as Values);
}

function atPath(path: string, value: string): Values {
  const values: Record<string, unknown> = {};
  setAtPath(values, path, value);
  return values;
}

/**
 * Sets a Helm --set style dotted path ("image.tag") in `values`, making each map on the way (and
 * replacing a value in the way that is not one). For targetPath, a ReleaseSet's valuesFromLabels and
 * an imported Application's helm.parameters.
 */
export function setAtPath(values: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let at = values;
  for (const part of parts.slice(0, -1)) {
    const next = at[part];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) at[part] = {};
    at = at[part] as Record<string, unknown>;
  }
  at[parts[parts.length - 1] ?? path] = value;
}

/** Every entry's values, in order, or every problem. */
export function resolveValuesFrom(
  refs: readonly ValuesReference[],
  namespace: string,
  dataOf: (ref: ValuesReference, index: number) => Readonly<Record<string, string>> | undefined,
): Checked<(Values | undefined)[]> {
  const problems: Problem[] = [];
  const out: (Values | undefined)[] = [];
  refs.forEach((ref, i) => {
    const v = valuesOf(ref, i, namespace, dataOf(ref, i));
    if (v.ok) out.push(v.value);
    else problems.push(...v.problems);
  });
  return problems.length === 0 ? ok(out) : fail(problems);
}
