// Reads HealthRuleSet / GlobalHealthRuleSet manifests (multi-document YAML) into rule sets, for the
// default rule set, the rule library and `convoy rules eval`. Structure is checked here, with the
// line and column of the offending node; CEL is checked by newEvaluator.
import { type Document, LineCounter, parseAllDocuments } from 'yaml';
import type { HealthRuleSetLike } from './types.ts';

export const ruleSetApiVersion = 'convoy.kumodo.io/v1alpha1';
const ruleSetKinds = new Set(['HealthRuleSet', 'GlobalHealthRuleSet']);

/** 1-based line and column in the YAML text. */
export interface YamlPosition {
  readonly line: number;
  readonly column: number;
}

export type ParsedRuleSets =
  | {
      readonly ok: true;
      readonly ruleSets: readonly HealthRuleSetLike[];
      /** Where each rule starts, keyed by rule id (`<ruleSet>/<rule>`). */
      readonly rulePositions: ReadonlyMap<string, YamlPosition>;
    }
  | { readonly ok: false; readonly message: string };

const at = (p: YamlPosition | undefined): string => (p ? ` (line ${p.line}, column ${p.column})` : '');

/** Kubernetes objects of a YAML stream; empty documents are skipped. */
export function parseYamlObjects(
  text: string,
): { ok: true; objects: Record<string, unknown>[] } | { ok: false; message: string } {
  const parsed = parseDocs(text);
  if (!parsed.ok) return parsed;
  return { ok: true, objects: parsed.docs.map((d) => d.value) };
}

interface ParsedDoc {
  readonly value: Record<string, unknown>;
  /** Position of the node at a path, or of its closest ancestor that exists. */
  readonly positionOf: (path: readonly (string | number)[]) => YamlPosition | undefined;
}

function parseDocs(text: string): { ok: true; docs: ParsedDoc[] } | { ok: false; message: string } {
  const lineCounter = new LineCounter();
  const docs: ParsedDoc[] = [];
  for (const doc of parseAllDocuments(text, { uniqueKeys: false, lineCounter })) {
    if (doc.errors.length > 0) {
      const e = doc.errors[0];
      const p = e?.linePos?.[0];
      return {
        ok: false,
        message: `invalid YAML${p ? ` (line ${p.line}, column ${p.col})` : ''}: ${e?.message.split('\n')[0]}`,
      };
    }
    const v: unknown = doc.toJS();
    if (v === null || v === undefined) continue;
    const posOfOffset = (offset: number): YamlPosition => {
      const lp = lineCounter.linePos(offset);
      return { line: lp.line, column: lp.col };
    };
    if (typeof v !== 'object' || Array.isArray(v)) {
      const r = doc.contents?.range;
      return {
        ok: false,
        message: `a YAML document is not an object${at(r ? posOfOffset(r[0]) : undefined)}`,
      };
    }
    docs.push({ value: v as Record<string, unknown>, positionOf: nodePosition(doc, posOfOffset) });
  }
  return { ok: true, docs };
}

function nodePosition(
  doc: Document.Parsed,
  posOfOffset: (offset: number) => YamlPosition,
): ParsedDoc['positionOf'] {
  return (path) => {
    for (let n = path.length; n >= 0; n--) {
      const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
      const range = (node as { range?: [number, number, number] } | undefined)?.range;
      if (range) return posOfOffset(range[0]);
    }
    return undefined;
  };
}

export function parseRuleSets(text: string, source = 'input'): ParsedRuleSets {
  const parsed = parseDocs(text);
  if (!parsed.ok) return { ok: false, message: `${source}: ${parsed.message}` };
  const ruleSets: HealthRuleSetLike[] = [];
  const rulePositions = new Map<string, YamlPosition>();
  for (const [i, { value: o, positionOf }] of parsed.docs.entries()) {
    const where = `${source}, document ${i + 1}`;
    const bad = (path: (string | number)[], msg: string): ParsedRuleSets => ({
      ok: false,
      message: `${where}${at(positionOf(path))}: ${msg}`,
    });
    if (o.apiVersion !== ruleSetApiVersion || typeof o.kind !== 'string' || !ruleSetKinds.has(o.kind)) {
      return bad(
        o.apiVersion !== ruleSetApiVersion ? ['apiVersion'] : ['kind'],
        `want apiVersion ${ruleSetApiVersion}, kind HealthRuleSet or GlobalHealthRuleSet; got ${String(o.apiVersion)} ${String(o.kind)}`,
      );
    }
    const md = o.metadata as { name?: unknown; namespace?: unknown } | undefined;
    if (typeof md?.name !== 'string' || md.name === '')
      return bad(['metadata', 'name'], 'metadata.name is required');
    const spec = o.spec as { rules?: unknown } | undefined;
    if (!Array.isArray(spec?.rules)) return bad(['spec', 'rules'], 'spec.rules must be a list');
    for (const [j, r] of spec.rules.entries()) {
      if (typeof r !== 'object' || r === null || Array.isArray(r))
        return bad(['spec', 'rules', j], `spec.rules[${j}] must be a rule (name, match, healthy)`);
    }
    const namespace =
      o.kind === 'HealthRuleSet' && typeof md.namespace === 'string' ? md.namespace : undefined;
    const label = namespace ? `${namespace}/${md.name}` : md.name;
    for (const [j, r] of (spec.rules as { name?: unknown }[]).entries()) {
      const p = positionOf(['spec', 'rules', j]);
      if (p && typeof r.name === 'string') rulePositions.set(`${label}/${r.name}`, p);
    }
    ruleSets.push({
      kind: o.kind,
      metadata: { name: md.name, ...(namespace ? { namespace } : {}) },
      spec: { rules: spec.rules },
    });
  }
  return { ok: true, ruleSets, rulePositions };
}
