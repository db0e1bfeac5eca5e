// A check's successCondition / failureCondition: compiled once from the spec (errors name the check and
// the field), then evaluated over each measured `result` with Argo Rollouts' semantics, so a template
// read as it is judges as it did there (docs/design.md#verification). Runs under the bounded CEL of
// src/cel: a hostile condition costs at most its budget.
import { defaultBudget, describeExhausted, ObjectBudget } from '../cel/budget.ts';
import { type CelDeclaration, type CompiledExpr, compileExpr, formatPosition } from '../cel/compile.ts';
import { conditionFuncs } from './condition-funcs.ts';

/** A condition reads the measured value, bound to `result` (a list of doubles for a Prometheus vector). */
export const resultVariable: CelDeclaration = {
  variable: 'result',
  what: 'the measured value',
  funcs: conditionFuncs,
};

export type ConditionField = 'successCondition' | 'failureCondition';

export interface Conditions {
  readonly success?: CompiledExpr;
  readonly failure?: CompiledExpr;
}

export type CompileConditionsOutcome =
  | { readonly ok: true; readonly conditions: Conditions }
  | { readonly ok: false; readonly field: ConditionField; readonly message: string };

/** Compiles both conditions of check `name`; the first that does not compile is the error. */
export function compileConditions(
  name: string,
  spec: { readonly successCondition?: string | undefined; readonly failureCondition?: string | undefined },
): CompileConditionsOutcome {
  const out: { success?: CompiledExpr; failure?: CompiledExpr } = {};
  for (const [field, key] of [
    ['successCondition', 'success'],
    ['failureCondition', 'failure'],
  ] as const) {
    const source = spec[field];
    if (source === undefined) continue;
    const c = compileExpr(source, 'bool', resultVariable);
    if (!c.ok) {
      const at = c.position ? `, ${formatPosition(c.position)}` : '';
      return { ok: false, field, message: `check ${name}, ${field}${at}: ${c.message}` };
    }
    out[key] = c.expr;
  }
  return { ok: true, conditions: out };
}

/** The condition that decided a measurement, and whether it held. */
export interface Decisive {
  readonly field: ConditionField;
  readonly source: string;
  readonly held: boolean;
}

export interface Judgement {
  readonly phase: 'Successful' | 'Failed' | 'Inconclusive';
  /** Unset when the check has no condition (a Job check) or when both conditions were false. */
  readonly decisive?: Decisive;
  /** Why the phase is Inconclusive: an evaluation error, or neither condition held. */
  readonly message?: string;
}

/**
 * The phase of one measurement. Only success given: true Successful, else Failed. Only failure given:
 * true Failed, else Successful. Both: failure true Failed, else success true Successful, else
 * Inconclusive. None: Successful. An evaluation error (`result[0]` of an empty vector, a budget spent)
 * is Inconclusive with its message: missing data is not a failure.
 */
export function judge(conditions: Conditions, result: unknown): Judgement {
  const budget = new ObjectBudget(defaultBudget);
  const run = (expr: CompiledExpr, field: ConditionField): Decisive | { readonly message: string } => {
    const r = expr.run(result, budget);
    if (r.ok) {
      return typeof r.value === 'boolean'
        ? { field, source: expr.source, held: r.value }
        : { message: `${field} did not return a bool` };
    }
    if (r.exhausted)
      return { message: `${field} exceeded its budget (${describeExhausted(r.exhausted.how)})` };
    const empty = Array.isArray(result) && result.length === 0 ? ' (the query returned no data)' : '';
    return { message: `${field}: ${r.message}${empty}` };
  };
  const f = conditions.failure ? run(conditions.failure, 'failureCondition') : undefined;
  if (f && 'message' in f) return { phase: 'Inconclusive', message: f.message };
  const s = conditions.success ? run(conditions.success, 'successCondition') : undefined;
  if (s && 'message' in s) return { phase: 'Inconclusive', message: s.message };
  if (f?.held) return { phase: 'Failed', decisive: f };
  if (s === undefined) return f ? { phase: 'Successful', decisive: f } : { phase: 'Successful' };
  if (s.held) return { phase: 'Successful', decisive: s };
  return f ? { phase: 'Inconclusive', message: 'neither condition held' } : { phase: 'Failed', decisive: s };
}

/** "met failureCondition `result[0] > 0.01`" for a check's message. */
export function describeDecisive(d: Decisive): string {
  return `${d.held ? 'met' : 'did not meet'} ${d.field} \`${d.source}\``;
}
