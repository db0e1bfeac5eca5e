// Core of `convoy rules eval --rules <file|default> <object.yaml>...`: judges objects with rule
// sets, offline, exactly as the observer's evaluator does. The CLI wiring reads the files.
import { newEvaluator, RuleCompileError } from '../observer/health/evaluator.ts';
import { parseRuleSets, parseYamlObjects } from '../observer/health/ruleset-yaml.ts';
import {
  assertNever,
  type HealthRuleSetLike,
  type KubeObject,
  type RuleResult,
} from '../observer/health/types.ts';
import { defaultRuleSet } from '../rules/default-rules.ts';

export type RulesSource =
  | { readonly kind: 'default' }
  | { readonly kind: 'file'; readonly name: string; readonly text: string };

export interface ObjectSource {
  readonly name: string;
  readonly text: string;
}

/** 0: every object passes (or no rule matches it); 1: a failure or evaluation error; 2: bad input. */
export interface RulesEvalOutput {
  readonly lines: readonly string[];
  readonly exitCode: 0 | 1 | 2;
}

export function rulesEval(rules: readonly RulesSource[], objects: readonly ObjectSource[]): RulesEvalOutput {
  const ruleSets: HealthRuleSetLike[] = [];
  for (const src of rules) {
    switch (src.kind) {
      case 'default':
        ruleSets.push(defaultRuleSet());
        break;
      case 'file': {
        const p = parseRuleSets(src.text, src.name);
        if (!p.ok) return { lines: [`error: ${p.message}`], exitCode: 2 };
        ruleSets.push(...p.ruleSets);
        break;
      }
      default:
        assertNever(src);
    }
  }
  let ev: ReturnType<typeof newEvaluator>;
  try {
    ev = newEvaluator(ruleSets);
  } catch (e) {
    if (e instanceof RuleCompileError) return { lines: [`error: ${e.message}`], exitCode: 2 };
    throw e;
  }

  const rows: [string, string, string, string][] = [];
  let exitCode: 0 | 1 = 0;
  for (const src of objects) {
    const parsed = parseYamlObjects(src.text);
    if (!parsed.ok) return { lines: [`error: ${src.name}: ${parsed.message}`], exitCode: 2 };
    for (const o of parsed.objects.flatMap(expandList)) {
      if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') {
        return { lines: [`error: ${src.name}: an object without apiVersion and kind`], exitCode: 2 };
      }
      const obj = o as unknown as KubeObject;
      const r = ev.evaluate(obj);
      if (r.kind === 'fail' || r.kind === 'error') exitCode = 1;
      rows.push([describe(obj), ...columns(r)]);
    }
  }
  return { lines: table([['OBJECT', 'RESULT', 'RULE', 'MESSAGE'], ...rows]), exitCode };
}

function expandList(o: Record<string, unknown>): Record<string, unknown>[] {
  // `kubectl get -o yaml` prints a List; judge its items.
  if (typeof o.kind === 'string' && o.kind.endsWith('List') && Array.isArray(o.items)) {
    return o.items.filter((i): i is Record<string, unknown> => typeof i === 'object' && i !== null);
  }
  return [o];
}

function describe(o: KubeObject): string {
  const md = o.metadata;
  const name = `${md?.namespace ? `${md.namespace}/` : ''}${md?.name ?? '(unnamed)'}`;
  return `${o.kind}/${name}`;
}

function columns(r: RuleResult): [string, string, string] {
  switch (r.kind) {
    case 'pass':
      return ['pass', r.rules.join(','), ''];
    case 'fail':
      return ['fail', r.rule, r.message];
    case 'error':
      return ['error', r.rule, r.message];
    case 'noRule':
      return ['no rule', '-', 'no rule matches: healthy once it exists'];
    default:
      return assertNever(r);
  }
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}
