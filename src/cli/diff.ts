// `convoy diff` and `convoy approve`: a unified diff of an object as it is live against the object
// a dry-run apply says it would become, and the inventory entries the render would prune. Pure.
import { stringify } from 'yaml';
import { inventoryKeyOf } from '../api/keys.ts';
import type { InventoryEntry } from '../api/types.ts';

/**
 * Fields that change on every write or are the server's bookkeeping, not content: left out of both
 * sides (uid and creationTimestamp would otherwise show as additions for every new object).
 */
export function comparable(
  obj: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> | undefined {
  if (obj === undefined) return undefined;
  const copy = structuredClone(obj) as Record<string, unknown> & { metadata?: Record<string, unknown> };
  // What the cluster reports, never what a sync writes: convoy applies no status.
  delete copy.status;
  if (copy.metadata !== undefined) {
    for (const k of ['managedFields', 'resourceVersion', 'generation', 'uid', 'creationTimestamp'])
      delete copy.metadata[k];
  }
  return copy;
}

/**
 * The two sides one object's diff compares: the live object against what a sync would leave — the
 * server's dry-run result for an object that exists; for a new one the object as convoy sends it, since
 * the defaults the server would fill in (a Namespace's finalizers, a Service's clusterIP) are no change
 * anyone wrote. Both without what comparable drops.
 */
export function diffSides(
  live: Readonly<Record<string, unknown>> | undefined,
  merged: Readonly<Record<string, unknown>> | undefined,
  sent: Readonly<Record<string, unknown>>,
): {
  readonly before: Record<string, unknown> | undefined;
  readonly after: Record<string, unknown> | undefined;
} {
  return { before: comparable(live), after: comparable(live === undefined ? sent : merged) };
}

export function yamlOf(obj: unknown): string {
  return obj === undefined ? '' : stringify(obj, { sortMapEntries: false, lineWidth: 0 });
}

type Op = { readonly kind: ' ' | '-' | '+'; readonly line: string };

/** Line operations turning a into b, from the longest common subsequence. */
function lineOps(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: LCS length of a[i..] and b[j..]
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    const row = lcs[i] as number[];
    const next = lcs[i + 1] as number[];
    for (let j = m - 1; j >= 0; j--) {
      row[j] = a[i] === b[j] ? (next[j + 1] ?? 0) + 1 : Math.max(next[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i] as string });
      i++;
      j++;
    } else if (i < n && (j >= m || (lcs[i + 1]?.[j] ?? 0) >= (lcs[i]?.[j + 1] ?? 0))) {
      ops.push({ kind: '-', line: a[i] as string });
      i++;
    } else {
      ops.push({ kind: '+', line: b[j] as string });
      j++;
    }
  }
  return ops;
}

const splitLines = (s: string): string[] => (s === '' ? [] : s.replace(/\n$/, '').split('\n'));

/**
 * A unified diff (`--- a`, `+++ b`, `@@` hunks with `context` lines around changes) of two texts;
 * [] when they are equal.
 */
export function unifiedDiff(
  before: string,
  after: string,
  labels: { readonly before: string; readonly after: string },
  context = 3,
): string[] {
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = lineOps(a, b);
  if (ops.every((o) => o.kind === ' ')) return [];
  const out = [`--- ${labels.before}`, `+++ ${labels.after}`];
  // positions (in ops) of changes, grouped into hunks whose context overlaps
  const changed = ops.flatMap((o, k) => (o.kind === ' ' ? [] : [k]));
  let h = 0;
  while (h < changed.length) {
    const first = changed[h] as number;
    let last = first;
    while (h + 1 < changed.length && (changed[h + 1] as number) - last <= 2 * context + 1) {
      h++;
      last = changed[h] as number;
    }
    h++;
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length, last + context + 1);
    // line numbers: count a-lines and b-lines before `from`
    let aLine = 1;
    let bLine = 1;
    for (let k = 0; k < from; k++) {
      const op = ops[k] as Op;
      if (op.kind !== '+') aLine++;
      if (op.kind !== '-') bLine++;
    }
    const slice = ops.slice(from, to);
    const aCount = slice.filter((o) => o.kind !== '+').length;
    const bCount = slice.filter((o) => o.kind !== '-').length;
    out.push(
      `@@ -${aCount === 0 ? aLine - 1 : aLine},${aCount} +${bCount === 0 ? bLine - 1 : bLine},${bCount} @@`,
    );
    for (const o of slice) out.push(`${o.kind}${o.line}`);
  }
  return out;
}

export interface Key {
  readonly group: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

const keyOf = inventoryKeyOf;

/**
 * Inventory entries a sync of the render would delete: those not in the render, when prune is on.
 * An object marked `prune: disabled` leaves the inventory but stays (the caller checks the live object).
 */
export function pruneCandidates(
  entries: readonly InventoryEntry[],
  renderKeys: readonly Key[],
  prune: boolean,
): { readonly pruned: InventoryEntry[]; readonly kept: InventoryEntry[] } {
  const inRender = new Set(renderKeys.map(keyOf));
  const gone = entries.filter((e) => !inRender.has(keyOf(e)));
  return prune ? { pruned: gone, kept: [] } : { pruned: [], kept: gone };
}

/**
 * What a sync does to an object that left the render (its live object read): kept by its own annotation
 * (`keep`, the keptBy reason), kept as a CustomResourceDefinition without the opt-in, or pruned — a CRD's
 * prune naming what goes with it (every custom resource of its kind).
 */
export function leftRenderLine(
  name: string,
  crd: boolean,
  keep: string | undefined,
  pruneCRDs: boolean,
): { readonly prune: boolean; readonly text: string } {
  if (keep !== undefined) return { prune: false, text: `keep   ${name} (left the render; ${keep})` };
  if (crd && !pruneCRDs) {
    return {
      prune: false,
      text: `keep   ${name} (left the render; a CustomResourceDefinition is deleted only with syncPolicy.pruneCRDs: true)`,
    };
  }
  const why = crd
    ? 'left the render; syncPolicy.pruneCRDs: true deletes it and every custom resource of its kind in the cluster'
    : 'left the render';
  return { prune: true, text: `prune  ${name} (${why})` };
}

/** Colour for a diff line on a terminal: red removals, green additions, bold headers. */
export function diffLineStyle(line: string): 'red' | 'green' | 'bold' | undefined {
  if (line.startsWith('---') || line.startsWith('+++') || line.startsWith('@@')) return 'bold';
  if (line.startsWith('-')) return 'red';
  if (line.startsWith('+')) return 'green';
  return undefined;
}
