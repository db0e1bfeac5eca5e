// The JSONPath subset a web check selects its result with, as Argo Rollouts templates write it:
// `{$.data.ok}`, `$.items[0].value`, `$['a-b']`, `$` (the whole answer). Parsed at spec time, so a
// path outside the subset (filters, wildcards, recursion) is refused before anything is measured.

export type PathStep =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'index'; readonly at: number };

export type ParsedPath =
  | { readonly ok: true; readonly steps: readonly PathStep[] }
  | { readonly ok: false; readonly message: string };

export function parseJsonPath(path: string): ParsedPath {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1).trim();
  if (!p.startsWith('$')) return { ok: false, message: `jsonPath ${JSON.stringify(path)} must start with $` };
  const steps: PathStep[] = [];
  let i = 1;
  while (i < p.length) {
    const rest = p.slice(i);
    const field = /^\.([A-Za-z_$][\w$-]*)/.exec(rest);
    const index = /^\[(\d+)\]/.exec(rest);
    const quoted = /^\[(?:'([^'\\]*)'|"([^"\\]*)")\]/.exec(rest);
    if (field) {
      steps.push({ kind: 'field', name: field[1] as string });
      i += field[0].length;
    } else if (index) {
      steps.push({ kind: 'index', at: Number(index[1]) });
      i += index[0].length;
    } else if (quoted) {
      steps.push({ kind: 'field', name: (quoted[1] ?? quoted[2]) as string });
      i += quoted[0].length;
    } else {
      return {
        ok: false,
        message: `jsonPath ${JSON.stringify(path)}: ${JSON.stringify(rest.slice(0, 20))} is not supported (fields, [n] and ['name'] only)`,
      };
    }
  }
  return { ok: true, steps };
}

/** The value at `steps` in `json`; `found: false` when a step has nothing there. */
export function selectJson(
  json: unknown,
  steps: readonly PathStep[],
): { readonly found: boolean; readonly value?: unknown } {
  let v = json;
  for (const s of steps) {
    if (s.kind === 'index') {
      if (!Array.isArray(v) || s.at >= v.length) return { found: false };
      v = v[s.at];
    } else {
      if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.hasOwn(v, s.name))
        return { found: false };
      v = (v as Record<string, unknown>)[s.name];
    }
  }
  return { found: true, value: v };
}
