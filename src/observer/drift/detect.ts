// detectDrift: is the live object still what convoy applied? Only the fields convoy sets count — every
// leaf of the desired object (the render's object plus the release label), minus what the server owns —
// and each must be present on the live object with the same value once the server's canonical forms are
// undone (quantities, int-or-string numbers, base64, zero values the server omits). Fields that exist
// only on the live object (defaults, other managers' fields) are never drift. Pure; table tests beside it.
import { groupOf } from '../../render/keys.ts';
import { parseQuantity, sameQuantity } from './quantity.ts';

export type Difference =
  | { readonly kind: 'missing'; readonly path: string; readonly desired: unknown }
  | { readonly kind: 'changed'; readonly path: string; readonly desired: unknown; readonly live: unknown };

export type DriftResult =
  | { readonly kind: 'inSync' }
  /** The object is gone from the target cluster. */
  | { readonly kind: 'deleted' }
  | { readonly kind: 'drifted'; readonly differences: readonly Difference[] };

interface DesiredObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly [k: string]: unknown;
}

/** Metadata the server sets or manages: never part of what convoy applies. */
const SERVER_METADATA = new Set([
  'resourceVersion',
  'uid',
  'generation',
  'creationTimestamp',
  'managedFields',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
]);

/** Keys of maps whose values are quantities in the built-in APIs (resources, quotas, limit ranges, PVs). */
const QUANTITY_MAPS = new Set([
  'limits',
  'requests',
  'hard',
  'capacity',
  'allocatable',
  'overhead',
  'default',
  'defaultRequest',
  'max',
  'min',
  'maxLimitRequestRatio',
]);
/** Scalar quantity fields: emptyDir.sizeLimit, HPA metric targets. */
const QUANTITY_FIELDS = new Set(['sizeLimit', 'averageValue']);

interface Ctx {
  readonly builtIn: boolean;
  readonly kind: string;
  readonly out: Difference[];
}

type Seg = { readonly field: string } | { readonly item: string };

export function detectDrift(
  desired: DesiredObject,
  live: Readonly<Record<string, unknown>> | undefined,
): DriftResult {
  if (live === undefined) return { kind: 'deleted' };
  const group = groupOf(desired.apiVersion);
  const ctx: Ctx = {
    // Custom resources are stored as sent: nothing is canonicalized there.
    builtIn: group === '' || !group.includes('.') || group.endsWith('.k8s.io'),
    kind: desired.kind,
    out: [],
  };
  const want = desiredFields(desired);
  for (const [k, v] of Object.entries(want)) compare(v, live[k], [{ field: k }], ctx);
  return ctx.out.length === 0 ? { kind: 'inSync' } : { kind: 'drifted', differences: ctx.out };
}

/** What convoy's apply sets: no identity, no status (a subresource), no server metadata; Secret stringData as data. */
function desiredFields(obj: DesiredObject): Record<string, unknown> {
  const {
    apiVersion: _v,
    kind: _k,
    status: _s,
    metadata,
    ...rest
  } = obj as DesiredObject & {
    status?: unknown;
    metadata?: Record<string, unknown>;
  };
  const meta = Object.fromEntries(Object.entries(metadata ?? {}).filter(([k]) => !SERVER_METADATA.has(k)));
  const out: Record<string, unknown> = { ...rest, metadata: meta };
  if (obj.kind === 'Secret' && groupOf(obj.apiVersion) === '' && isMap(out.stringData)) {
    // The server folds stringData into data (base64) and never stores stringData itself.
    const data: Record<string, unknown> = isMap(out.data) ? { ...out.data } : {};
    for (const [k, v] of Object.entries(out.stringData)) {
      if (typeof v === 'string') data[k] = Buffer.from(v, 'utf8').toString('base64');
    }
    out.data = data;
    delete out.stringData;
  }
  return out;
}

function compare(d: unknown, l: unknown, path: readonly Seg[], ctx: Ctx): void {
  // null in an apply means "not set by this manager".
  if (d === null || d === undefined) return;
  if (isMap(d)) {
    if (l === undefined || l === null) {
      for (const [k, v] of Object.entries(d)) compare(v, undefined, [...path, { field: k }], ctx);
      return;
    }
    if (!isMap(l)) {
      ctx.out.push({ kind: 'changed', path: formatPath(path), desired: d, live: l });
      return;
    }
    for (const [k, v] of Object.entries(d)) compare(v, l[k], [...path, { field: k }], ctx);
    return;
  }
  if (Array.isArray(d)) {
    compareList(d, l, path, ctx);
    return;
  }
  if (l === undefined || l === null) {
    // The server omits zero values of omitempty fields: false, 0 and "" read back as absent.
    if (!isZero(d)) ctx.out.push({ kind: 'missing', path: formatPath(path), desired: d });
    return;
  }
  if (!sameScalar(d, l, path, ctx))
    ctx.out.push({ kind: 'changed', path: formatPath(path), desired: d, live: l });
}

function compareList(d: readonly unknown[], l: unknown, path: readonly Seg[], ctx: Ctx): void {
  // An empty list sets nothing the server keeps.
  if (d.length === 0) return;
  if (l === undefined || l === null) {
    ctx.out.push({ kind: 'missing', path: formatPath(path), desired: d });
    return;
  }
  if (!Array.isArray(l)) {
    ctx.out.push({ kind: 'changed', path: formatPath(path), desired: d, live: l });
    return;
  }
  if (!d.every(isMap)) {
    // Lists of scalars (args, command, finalizers …): order and length are the value.
    const same = d.length === l.length && d.every((x, i) => sameScalar(x, l[i], path, ctx));
    if (!same) ctx.out.push({ kind: 'changed', path: formatPath(path), desired: d, live: l });
    return;
  }
  const keyOf = listKey(d);
  if (keyOf !== undefined) {
    // Associative lists (containers, env, ports, volumes …): items are matched by their merge key, so
    // items another manager added, or a different order, are not drift.
    const byKey = new Map<string, unknown>();
    for (const x of l) if (isMap(x)) byKey.set(keyOf(x) ?? '', x);
    for (const x of d) {
      const key = keyOf(x) ?? '';
      const item = [...path, { item: key }];
      const match = byKey.get(key);
      if (match === undefined) ctx.out.push({ kind: 'missing', path: formatPath(item), desired: x });
      else compare(x, match, item, ctx);
    }
    return;
  }
  // Keyless lists of objects (tolerations, …): each desired item must be found among the live items
  // (admission may add items); when it is not, report it against the item at its own position.
  d.forEach((x, i) => {
    const found = l.some((y) => {
      const probe: Ctx = { ...ctx, out: [] };
      compare(x, y, [], probe);
      return probe.out.length === 0;
    });
    if (!found) compare(x, l[i], [...path, { item: String(i) }], ctx);
  });
}

/** The merge key of a list of objects, when every desired item has one and no two share it. */
function listKey(
  items: readonly Readonly<Record<string, unknown>>[],
): ((x: Readonly<Record<string, unknown>>) => string | undefined) | undefined {
  const portKey = (field: string) => (x: Readonly<Record<string, unknown>>) =>
    x[field] === undefined
      ? undefined
      : `${String(x[field])}/${typeof x.protocol === 'string' ? x.protocol : 'TCP'}`;
  const candidates = [
    (x: Readonly<Record<string, unknown>>) => str(x.mountPath),
    (x: Readonly<Record<string, unknown>>) => str(x.devicePath),
    (x: Readonly<Record<string, unknown>>) => str(x.name),
    portKey('containerPort'),
    portKey('port'),
    (x: Readonly<Record<string, unknown>>) => str(x.ip),
  ];
  for (const fn of candidates) {
    const keys = items.map(fn);
    if (keys.every((k) => k !== undefined) && new Set(keys).size === keys.length) return fn;
  }
  return undefined;
}

function sameScalar(d: unknown, l: unknown, path: readonly Seg[], ctx: Ctx): boolean {
  if (d === l) return true;
  if (ctx.builtIn && isQuantityPath(path)) {
    const qd = parseQuantity(d);
    const ql = parseQuantity(l);
    if (qd !== undefined && ql !== undefined) return sameQuantity(qd, ql);
  }
  if (isBase64Path(ctx.kind, path) && typeof d === 'string' && typeof l === 'string') {
    return Buffer.from(d, 'base64').equals(Buffer.from(l, 'base64'));
  }
  // int-or-string fields (ports, maxSurge …): 8080 and "8080" are one value.
  if (typeof d === 'number' && typeof l === 'string') return String(d) === l;
  if (typeof d === 'string' && typeof l === 'number') return d === String(l);
  return false;
}

function isQuantityPath(path: readonly Seg[]): boolean {
  const last = path[path.length - 1];
  const parent = path[path.length - 2];
  if (last === undefined || !('field' in last)) return false;
  if (QUANTITY_FIELDS.has(last.field)) return true;
  if (last.field === 'value' && parent !== undefined && 'field' in parent && parent.field === 'target')
    return true;
  return parent !== undefined && 'field' in parent && QUANTITY_MAPS.has(parent.field);
}

/** Secret data and ConfigMap binaryData: bytes, which the server re-encodes as standard padded base64. */
function isBase64Path(kind: string, path: readonly Seg[]): boolean {
  const top = path[0];
  if (path.length !== 2 || top === undefined || !('field' in top)) return false;
  return (kind === 'Secret' && top.field === 'data') || (kind === 'ConfigMap' && top.field === 'binaryData');
}

const SIMPLE_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** spec.template.spec.containers[web].image, metadata.labels["app.kubernetes.io/name"]. */
export function formatPath(path: readonly Seg[]): string {
  let s = '';
  for (const seg of path) {
    if ('item' in seg) s += `[${seg.item}]`;
    else if (SIMPLE_KEY.test(seg.field)) s += s === '' ? seg.field : `.${seg.field}`;
    else s += `[${JSON.stringify(seg.field)}]`;
  }
  return s;
}

function isZero(v: unknown): boolean {
  return v === false || v === 0 || v === '';
}

function isMap(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
