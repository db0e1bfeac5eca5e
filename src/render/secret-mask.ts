// Secret values are never printed: every output that shows a manifest or a live object (convoy diff,
// approve, render, the HTTP API's renders view) passes it through here. Like kubectl diff, the keys
// stay visible and a value becomes a mask; in a pair of objects the mask still tells whether the value
// changed (`*** (before)` / `*** (after)`) or not (`***` on both sides).

export const MASK = '***';

type Obj = Readonly<Record<string, unknown>>;

/** Core-group Secret: the only kind whose values are masked. */
export function isSecret(obj: unknown): obj is Obj {
  if (typeof obj !== 'object' || obj === null) return false;
  const o = obj as Obj;
  return o.kind === 'Secret' && (o.apiVersion === 'v1' || o.apiVersion === undefined);
}

// kubectl's client-side apply keeps the whole object, values included, in this annotation.
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const VALUE_FIELDS = ['data', 'stringData'] as const;

function values(o: Obj | undefined, field: string): Readonly<Record<string, unknown>> | undefined {
  const v = o?.[field];
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

/** The object with every value of a Secret's data and stringData masked; other objects unchanged. */
export function maskSecret<T>(obj: T): T {
  if (!isSecret(obj)) return obj;
  return maskWith(obj, (field, key) => (values(obj, field)?.[key] === undefined ? undefined : MASK)) as T;
}

/**
 * Both sides of a diff masked, so that a changed value reads `*** (before)` / `*** (after)` and an
 * equal one `***`. Either side may be absent (an object to create, or to delete).
 */
export function maskSecretPair<A, B>(before: A, after: B): { readonly before: A; readonly after: B } {
  if (!isSecret(before) && !isSecret(after)) return { before, after };
  const b = isSecret(before) ? before : undefined;
  const a = isSecret(after) ? after : undefined;
  const mask = (mine: Obj | undefined, other: Obj | undefined, side: 'before' | 'after') => {
    if (mine === undefined) return undefined;
    return maskWith(mine, (field, key) => {
      const v = values(mine, field)?.[key];
      if (v === undefined) return undefined;
      const w = values(other, field)?.[key];
      return other !== undefined && w !== undefined && JSON.stringify(w) === JSON.stringify(v)
        ? MASK
        : `${MASK} (${side})`;
    });
  };
  return {
    before: (b === undefined ? before : mask(b, a, 'before')) as A,
    after: (a === undefined ? after : mask(a, b, 'after')) as B,
  };
}

function maskWith(obj: Obj, maskOf: (field: string, key: string) => string | undefined): Obj {
  const out: Record<string, unknown> = { ...obj };
  for (const field of VALUE_FIELDS) {
    const vs = values(obj, field);
    if (vs === undefined) continue;
    out[field] = Object.fromEntries(Object.keys(vs).map((k) => [k, maskOf(field, k) ?? vs[k]]));
  }
  const md = obj.metadata as { annotations?: Record<string, unknown> } | undefined;
  if (md?.annotations?.[LAST_APPLIED] !== undefined) {
    out.metadata = { ...md, annotations: { ...md.annotations, [LAST_APPLIED]: MASK } };
  }
  return out;
}
