// A values.schema.json violation said where the user can fix it: helm reports "at '/db/port': got
// string, want integer" for the merged values; this finds the layer that set the value last (inline
// values, then valuesFrom from last to first, then valuesFiles from last to first, else the chart's
// own values.yaml) and names that field. Pure.
import type { Problem } from '../errors.ts';

export type ValuesLayer = {
  /** "spec.render.helm.values", "spec.render.helm.valuesFrom[0] (Secret web/db)", … */
  readonly where: string;
  readonly values: unknown;
};

const SCHEMA = /values don't meet the specifications of the schema/;
const VIOLATION = /^-\s*at '([^']*)':\s*(.+)$/;

/** Whether helm's stderr is a values schema failure. */
export function isSchemaFailure(stderr: string): boolean {
  return SCHEMA.test(stderr);
}

function has(values: unknown, pointer: readonly string[]): boolean {
  let cur: unknown = values;
  for (const seg of pointer) {
    if (cur === null || typeof cur !== 'object') return false;
    if (!Object.hasOwn(cur, seg)) return false;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return true;
}

const unescapePointer = (s: string) => s.replaceAll('~1', '/').replaceAll('~0', '~');

/** One problem per violation helm listed, at the layer that set the value (layers lowest first). */
export function schemaProblems(stderr: string, layers: readonly ValuesLayer[]): Problem[] {
  const out: Problem[] = [];
  let chart = '';
  for (const raw of stderr.split('\n')) {
    const line = raw.trim();
    const head = /^([A-Za-z0-9_.-]+):$/.exec(line);
    if (head?.[1] !== undefined) {
      chart = head[1];
      continue;
    }
    const m = VIOLATION.exec(line);
    if (m?.[1] === undefined || m[2] === undefined) continue;
    const pointer = m[1] === '' ? [] : m[1].replace(/^\//, '').split('/').map(unescapePointer);
    const layer = [...layers].reverse().find((l) => pointer.length > 0 && has(l.values, pointer));
    const path = pointer.join('.');
    const schema = chart === '' ? "the chart's values.schema.json" : `values.schema.json of chart ${chart}`;
    out.push({
      where: `${layer === undefined ? "the chart's values.yaml" : layer.where}${path === '' ? '' : ` ${path}`}`,
      message: `${m[2]} (${schema})`,
    });
  }
  return out;
}
