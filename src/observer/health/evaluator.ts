// health.NewEvaluator: compiles every rule of the selected rule sets once, then judges objects.
// Every rule that matches an object must pass; see docs/health-rules.md for the precedence.
// Each object's rules run under one budget (src/cel/budget.ts); a rule that exceeds it is an error for
// that object and is not evaluated again for a cool-down, so one costly rule cannot eat the observer.
import { isCelList, isCelMap, isCelUint } from '@bufbuild/cel';
import { type Budget, defaultBudget, describeExhausted, ObjectBudget } from '../../cel/budget.ts';
import { limits, type Position } from '../../cel/check.ts';
import {
  type CelDeclaration,
  type CompiledExpr,
  compileExpr,
  type EvalOutcome,
  formatPosition,
} from '../../cel/compile.ts';
import { toCelObject } from '../../cel/value.ts';
import { maskSecret } from '../../render/secret-mask.ts';
import { selectorMatches, selectorProblem } from './selector.ts';
import {
  groupOf,
  type HealthRule,
  type HealthRuleSetLike,
  type KubeObject,
  type RuleResult,
} from './types.ts';

const maxMessageChars = 1024;

/** A rule reads the judged object, bound to `object`. */
const objectVariable: CelDeclaration = { variable: 'object', what: 'the object' };

/** How long a rule that exceeded its budget is skipped (judged Unknown without evaluating it). */
export const budgetCooldownMs = 60_000;

export interface EvaluatorOptions {
  readonly budget?: { readonly expression: Budget; readonly object: Budget };
  /** Milliseconds clock for the cool-down (default performance.now). */
  readonly now?: () => number;
}

/** A rule that does not compile; stops the assessment of the whole Release. */
export class RuleCompileError extends Error {
  readonly reason = 'RuleCompileFailed';
  readonly ruleSet: string;
  readonly rule: string;
  readonly field: string;
  readonly position: Position | undefined;
  readonly celMessage: string;
  constructor(ruleSet: string, rule: string, field: string, celMessage: string, position?: Position) {
    const at = position ? `, ${formatPosition(position)}` : '';
    super(`rule set ${ruleSet}, rule ${rule || '(unnamed)'}, ${field}${at}: ${celMessage}`);
    this.name = 'RuleCompileError';
    this.ruleSet = ruleSet;
    this.rule = rule;
    this.field = field;
    this.position = position;
    this.celMessage = celMessage;
  }
}

export interface CompiledRule {
  /** `<ruleSet>/<rule>`; a namespaced rule set is `<namespace>/<name>`. */
  readonly id: string;
  readonly rule: HealthRule;
  readonly group: string;
  readonly kinds: ReadonlySet<string>;
  readonly healthy: CompiledExpr;
  readonly message: CompiledExpr | undefined;
}

export interface Evaluator {
  readonly rules: readonly CompiledRule[];
  /** Rules whose group, kind and selector match the object, in rule-set order. */
  matching(object: KubeObject): readonly CompiledRule[];
  evaluate(object: KubeObject): RuleResult;
}

export function ruleSetLabel(rs: HealthRuleSetLike): string {
  return rs.metadata.namespace ? `${rs.metadata.namespace}/${rs.metadata.name}` : rs.metadata.name;
}

/** Throws RuleCompileError on the first rule that does not compile: no partial evaluator. */
export function newEvaluator(
  ruleSets: readonly HealthRuleSetLike[],
  options: EvaluatorOptions = {},
): Evaluator {
  const rules: CompiledRule[] = [];
  for (const rs of ruleSets) {
    const set = ruleSetLabel(rs);
    const seen = new Set<string>();
    const list = rs.spec?.rules;
    if (!Array.isArray(list)) throw new RuleCompileError(set, '', 'spec.rules', 'must be a list');
    const chars = list.reduce((n, r) => n + sourceLength(r?.healthy) + sourceLength(r?.message), 0);
    if (chars > limits.maxRuleSetSourceChars) {
      const fmt = (n: number) => n.toLocaleString('en-US');
      throw new RuleCompileError(
        set,
        '',
        'spec.rules',
        `CEL expressions total ${fmt(chars)} characters; the limit is ${fmt(limits.maxRuleSetSourceChars)} per rule set`,
      );
    }
    for (const rule of list) rules.push(compileRule(set, rule, seen));
  }
  return makeEvaluator(rules, options);
}

function sourceLength(x: unknown): number {
  return typeof x === 'string' ? x.length : 0;
}

function compileRule(set: string, rule: HealthRule, seen: Set<string>): CompiledRule {
  const name = typeof rule?.name === 'string' ? rule.name : '';
  const fail = (field: string, msg: string, pos?: Position): never => {
    throw new RuleCompileError(set, name, field, msg, pos);
  };
  if (name === '') fail('name', 'a rule needs a name');
  if (seen.has(name)) fail('name', 'duplicate rule name in this rule set');
  seen.add(name);
  const m = rule.match;
  if (typeof m !== 'object' || m === null) fail('match', 'is required');
  const group = m.group ?? '';
  if (typeof group !== 'string') fail('match.group', 'must be a string ("" for the core group, "*" for any)');
  if (
    !Array.isArray(m.kinds) ||
    m.kinds.length === 0 ||
    m.kinds.some((k) => typeof k !== 'string' || k === '')
  ) {
    fail('match.kinds', 'must be a non-empty list of kinds ("*" for any kind)');
  }
  const sp = selectorProblem(m.selector);
  if (sp) fail('match.selector', sp);
  if (rule.fallback !== undefined && typeof rule.fallback !== 'boolean') fail('fallback', 'must be a bool');
  if (typeof rule.healthy !== 'string') fail('healthy', 'must be a CEL expression string');
  const healthy = compileExpr(rule.healthy, 'bool', objectVariable);
  if (!healthy.ok) return fail('healthy', healthy.message, healthy.position);
  let message: CompiledExpr | undefined;
  if (rule.message !== undefined) {
    if (typeof rule.message !== 'string') fail('message', 'must be a CEL expression string');
    const c = compileExpr(rule.message, 'string', objectVariable);
    if (!c.ok) return fail('message', c.message, c.position);
    message = c.expr;
  }
  return {
    id: `${set}/${name}`,
    rule,
    group: group === 'core' ? '' : group,
    kinds: new Set(m.kinds),
    healthy: healthy.expr,
    message,
  };
}

function makeEvaluator(rules: readonly CompiledRule[], options: EvaluatorOptions): Evaluator {
  const budget = options.budget ?? defaultBudget;
  const now = options.now ?? (() => performance.now());
  // Rule id → until when it is skipped, and the message of the overrun that tripped it.
  const tripped = new Map<string, { readonly until: number; readonly message: string }>();
  // Why: the observer judges many objects of few kinds; group/kind candidates are cached.
  const byGroupKind = new Map<string, readonly CompiledRule[]>();
  const candidates = (group: string, kind: string): readonly CompiledRule[] => {
    const key = `${group}\u0000${kind}`;
    let c = byGroupKind.get(key);
    if (c === undefined) {
      c = rules.filter(
        (r) => (r.group === '*' || r.group === group) && (r.kinds.has('*') || r.kinds.has(kind)),
      );
      byGroupKind.set(key, c);
    }
    return c;
  };
  const matching = (o: KubeObject): readonly CompiledRule[] => {
    const ms = candidates(groupOf(String(o.apiVersion ?? '')), String(o.kind ?? '')).filter((r) =>
      selectorMatches(r.rule.match.selector, o.metadata?.labels),
    );
    // Fallback rules (the generic one) step aside for any rule written for the object's kind.
    return ms.some((r) => r.rule.fallback !== true) ? ms.filter((r) => r.rule.fallback !== true) : ms;
  };

  return {
    rules,
    matching,
    evaluate(o: KubeObject): RuleResult {
      const ms = matching(o);
      if (ms.length === 0) return { kind: 'noRule' };
      // Rules see a Secret's keys, never its values: a rule's message is printed to more people.
      const cel = toCelObject(maskSecret(o));
      const objectBudget = new ObjectBudget(budget);
      const passed: string[] = [];
      let firstError: { rule: string; message: string } | undefined;
      for (const r of ms) {
        const trip = tripped.get(r.id);
        let out: Judgement;
        if (trip !== undefined && now() < trip.until) {
          out = { kind: 'error', message: trip.message };
        } else {
          out = judge(r, cel.value, objectBudget);
          if (out.kind === 'exceeded') {
            if (out.ran) {
              const secs = Math.round(budgetCooldownMs / 1000);
              const message = `${out.message}; not evaluated again for ${secs} s`;
              tripped.set(r.id, { until: now() + budgetCooldownMs, message });
            }
            out = { kind: 'error', message: out.message };
          }
        }
        switch (out.kind) {
          case 'pass':
            passed.push(r.id);
            break;
          case 'fail':
            // A certain failure beats an error elsewhere: it is what the user must fix, and an
            // Unknown would hold the rollout verdict at Pending instead of letting it fail.
            return { kind: 'fail', rule: r.id, message: truncate(out.message) };
          case 'error':
            firstError ??= { rule: r.id, message: truncate(out.message) };
            break;
        }
      }
      if (firstError) return { kind: 'error', ...firstError };
      return ms.every((r) => r.rule.fallback === true)
        ? { kind: 'pass', rules: passed, fallback: true }
        : { kind: 'pass', rules: passed };
    },
  };
}

type Judgement =
  | { kind: 'pass' }
  | { kind: 'fail'; message: string }
  | { kind: 'error'; message: string }
  | { kind: 'exceeded'; message: string; ran: boolean };

function exceeded(r: CompiledRule, field: string, out: EvalOutcome<unknown>): Judgement | undefined {
  if (out.ok || out.exhausted === undefined) return undefined;
  return {
    kind: 'exceeded',
    message: `rule ${r.id} exceeded its budget (${field}: ${describeExhausted(out.exhausted.how)})`,
    ran: out.exhausted.ran,
  };
}

function judge(r: CompiledRule, object: unknown, budget: ObjectBudget): Judgement {
  const errorAt = (field: string, msg: string, pos?: Position): Judgement => ({
    kind: 'error',
    message: `rule ${r.id}, ${field}${pos ? `, ${formatPosition(pos)}` : ''}: ${msg}`,
  });
  const h = r.healthy.run(object, budget);
  if (!h.ok) return exceeded(r, 'healthy', h) ?? errorAt('healthy', h.message, h.position);
  if (typeof h.value !== 'boolean') return errorAt('healthy', `evaluated to ${typeName(h.value)}, want bool`);
  if (h.value) return { kind: 'pass' };
  if (r.message === undefined) return { kind: 'fail', message: `rule ${r.id} returned false` };
  // An overrun of the message is an overrun of the rule: the same cool-down, so it is not re-paid per object.
  const m = r.message.run(object, budget);
  return exceeded(r, 'message', m) ?? { kind: 'fail', message: failMessage(r, m) };
}

function failMessage(r: CompiledRule, m: EvalOutcome<unknown>): string {
  const fallback = `rule ${r.id} returned false`;
  if (!m.ok) return `${fallback} (message, ${formatPosition(m.position) || 'evaluation'}: ${m.message})`;
  if (typeof m.value !== 'string')
    return `${fallback} (message evaluated to ${typeName(m.value)}, want string)`;
  return m.value === '' ? fallback : m.value;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'boolean') return 'bool';
  if (isCelList(v)) return 'list';
  if (isCelMap(v)) return 'map';
  if (isCelUint(v)) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  return typeof v;
}

/** s cut to at most `max` characters, the cut marked by an ellipsis. */
export function truncate(s: string, max: number = maxMessageChars): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}
