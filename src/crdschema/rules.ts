// A CRD's x-kubernetes-validations rules compiled with the project's bounded CEL (src/cel), `self` bound
// to the value the rule is on. Only rules this environment reads as the API server does are kept; the
// others are skipped, with why, and left to the server's dry run once the CRD is in
// (docs/design.md#reconcile-order): transition rules (they read oldSelf, and a create has none), rules
// naming a function this environment lacks (the Kubernetes libraries: quantity, url, ip, lists, sets…)
// or an escaped property name (`__dash__`…), and rules past the size limits of src/cel.
import { type CelDeclaration, type CompiledExpr, compileExpr } from '../cel/compile.ts';

export interface Rule {
  readonly rule: string;
  /** What the user reads when the rule is false: its message, else the rule itself. */
  readonly message: string;
  /** The rule's fieldPath (".spec.x"), appended to the path of the value it is on. */
  readonly fieldPath: string;
}

export type CompiledRule =
  | { readonly kind: 'compiled'; readonly rule: Rule; readonly expr: CompiledExpr }
  | { readonly kind: 'skipped'; readonly rule: string; readonly why: string };

/** Longer rules are left to the server: parsing costs ~10-30 µs a character, on the event loop. */
export const maxRuleChars = 2048;

const declaration: CelDeclaration = { variable: 'self', what: 'the value the rule is on' };

/** The rules of one schema node, as written; anything not a rule object is ignored (the server refuses it). */
export function rulesOf(node: { readonly [keyword: string]: unknown }): readonly Rule[] {
  const list = node['x-kubernetes-validations'];
  if (!Array.isArray(list)) return [];
  const out: Rule[] = [];
  for (const r of list as unknown[]) {
    if (typeof r !== 'object' || r === null) continue;
    const { rule, message, fieldPath, optionalOldSelf } = r as Record<string, unknown>;
    if (typeof rule !== 'string') continue;
    // optionalOldSelf makes a transition rule run on create too, with oldSelf unset: left to the server.
    const marked = optionalOldSelf === true ? `${rule} /* oldSelf */` : rule;
    out.push({
      rule: marked,
      message: typeof message === 'string' && message !== '' ? message : `failed rule: ${rule}`,
      fieldPath: typeof fieldPath === 'string' && /^[.[]/.test(fieldPath) ? fieldPath : '',
    });
  }
  return out;
}

/** Compiles `rule`, or says why it is left to the server. Pure apart from src/cel's environment cache. */
export function compileRule(rule: Rule): CompiledRule {
  const skip = (why: string): CompiledRule => ({ kind: 'skipped', rule: rule.rule, why });
  if (/\boldSelf\b/.test(rule.rule)) return skip('a transition rule (oldSelf): a create has no old object');
  if (rule.rule.length > maxRuleChars) return skip(`longer than ${maxRuleChars} characters`);
  // Kubernetes escapes property names that are not CEL identifiers (foo-bar is foo__dash__bar); a map
  // here has them as written, so `has(self.foo__dash__bar)` would read false where the server reads true.
  if (rule.rule.includes('__')) return skip('an escaped property name (__…__)');
  const c = compileExpr(rule.rule, 'bool', declaration);
  if (!c.ok) return skip(`not in this CEL environment: ${c.message}`);
  return { kind: 'compiled', rule, expr: c.expr };
}
