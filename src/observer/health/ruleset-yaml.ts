// Reads HealthRuleSet / GlobalHealthRuleSet manifests (multi-document YAML) into rule sets, for the
// default rule set and `convoy rules eval`. Structure is checked here; CEL by newEvaluator.
import { parseAllDocuments } from 'yaml';
import type { HealthRuleSetLike } from './types.ts';

export const ruleSetApiVersion = 'convoy.kumodo.io/v1alpha1';
const ruleSetKinds = new Set(['HealthRuleSet', 'GlobalHealthRuleSet']);

export type ParsedRuleSets =
  | { readonly ok: true; readonly ruleSets: readonly HealthRuleSetLike[] }
  | { readonly ok: false; readonly message: string };

/** Kubernetes objects of a YAML stream; empty documents are skipped. */
export function parseYamlObjects(
  text: string,
): { ok: true; objects: Record<string, unknown>[] } | { ok: false; message: string } {
  const objects: Record<string, unknown>[] = [];
  for (const doc of parseAllDocuments(text, { uniqueKeys: false })) {
    if (doc.errors.length > 0) {
      const e = doc.errors[0];
      const at = e?.linePos?.[0] ? ` (line ${e.linePos[0].line}, column ${e.linePos[0].col})` : '';
      return { ok: false, message: `invalid YAML${at}: ${e?.message.split('\n')[0]}` };
    }
    const v: unknown = doc.toJS();
    if (v === null || v === undefined) continue;
    if (typeof v !== 'object' || Array.isArray(v))
      return { ok: false, message: 'a YAML document is not an object' };
    objects.push(v as Record<string, unknown>);
  }
  return { ok: true, objects };
}

export function parseRuleSets(text: string, source = 'input'): ParsedRuleSets {
  const parsed = parseYamlObjects(text);
  if (!parsed.ok) return { ok: false, message: `${source}: ${parsed.message}` };
  const ruleSets: HealthRuleSetLike[] = [];
  for (const [i, o] of parsed.objects.entries()) {
    const where = `${source}, document ${i + 1}`;
    if (o.apiVersion !== ruleSetApiVersion || typeof o.kind !== 'string' || !ruleSetKinds.has(o.kind)) {
      return {
        ok: false,
        message: `${where}: want apiVersion ${ruleSetApiVersion}, kind HealthRuleSet or GlobalHealthRuleSet; got ${String(o.apiVersion)} ${String(o.kind)}`,
      };
    }
    const md = o.metadata as { name?: unknown; namespace?: unknown } | undefined;
    if (typeof md?.name !== 'string' || md.name === '')
      return { ok: false, message: `${where}: metadata.name is required` };
    const spec = o.spec as { rules?: unknown } | undefined;
    if (!Array.isArray(spec?.rules)) return { ok: false, message: `${where}: spec.rules must be a list` };
    const namespace =
      o.kind === 'HealthRuleSet' && typeof md.namespace === 'string' ? md.namespace : undefined;
    ruleSets.push({
      kind: o.kind,
      metadata: { name: md.name, ...(namespace ? { namespace } : {}) },
      spec: { rules: spec.rules },
    });
  }
  return { ok: true, ruleSets };
}
