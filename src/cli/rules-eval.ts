// Core of `convoy rules eval`: judges objects with rule sets offline, exactly as the observer's
// evaluator does, or scores a directory of labelled fixtures (--expect) the way convoy's own rule
// library is scored against the Argo CD corpus. The CLI wiring (commands/offline.ts) reads files.

import { assertNever } from '../lib/assert-never.ts';
import {
  agreement,
  type Corpus,
  formatAgreementTable,
  type Scored,
  score,
} from '../observer/health/conformance.ts';
import { type Evaluator, newEvaluator, RuleCompileError } from '../observer/health/evaluator.ts';
import { parseRuleSets, parseYamlObjects, type YamlPosition } from '../observer/health/ruleset-yaml.ts';
import type { HealthRuleSetLike, KubeObject, RuleResult } from '../observer/health/types.ts';
import { defaultRuleSet } from '../rules/default-rules.ts';
import { libraryRuleSets } from '../rules/library.ts';

export type RulesSource =
  | { readonly kind: 'default' }
  | { readonly kind: 'library' }
  | { readonly kind: 'file'; readonly name: string; readonly text: string };

export interface ObjectSource {
  readonly name: string;
  readonly text: string;
}

/** 0: every object passes (or no rule matches it); 1: a failure or evaluation error; 2: bad input. */
export type ExitCode = 0 | 1 | 2;

export interface RulesEvalOutput {
  /** Standard output: the table, or one JSON document with -o json. */
  readonly lines: readonly string[];
  /** Standard error: inputs that could not be read, one line each. */
  readonly errors: readonly string[];
  readonly exitCode: ExitCode;
}

export interface RulesEvalOptions {
  readonly output?: 'table' | 'json';
}

type Loaded = { ok: true; evaluator: Evaluator } | { ok: false; errors: string[] };

/** Parses and compiles every rule source; reports each bad file, not only the first. */
export function loadEvaluator(rules: readonly RulesSource[]): Loaded {
  const ruleSets: HealthRuleSetLike[] = [];
  const where = new Map<string, { file: string; position: YamlPosition }>();
  const errors: string[] = [];
  for (const src of rules) {
    switch (src.kind) {
      case 'default':
        ruleSets.push(defaultRuleSet());
        break;
      case 'library':
        ruleSets.push(...libraryRuleSets());
        break;
      case 'file': {
        const p = parseRuleSets(src.text, src.name);
        if (!p.ok) {
          errors.push(p.message);
          break;
        }
        ruleSets.push(...p.ruleSets);
        for (const [id, position] of p.rulePositions) where.set(id, { file: src.name, position });
        break;
      }
      default:
        assertNever(src);
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  try {
    return { ok: true, evaluator: newEvaluator(ruleSets) };
  } catch (e) {
    if (!(e instanceof RuleCompileError)) throw e;
    const w = where.get(`${e.ruleSet}/${e.rule}`);
    const file = w ? ` (${w.file}, rule at line ${w.position.line}, column ${w.position.column})` : '';
    return { ok: false, errors: [`${e.message}${file}`] };
  }
}

interface Row {
  readonly file: string;
  readonly object: string;
  readonly result: 'pass' | 'fail' | 'error' | 'no rule';
  readonly rule: string;
  readonly message: string;
}

export function rulesEval(
  rules: readonly RulesSource[],
  objects: readonly ObjectSource[],
  opts: RulesEvalOptions = {},
): RulesEvalOutput {
  const loaded = loadEvaluator(rules);
  if (!loaded.ok) return invalidRules(loaded.errors, opts);
  const rows: Row[] = [];
  const invalid: string[] = [];
  for (const src of objects) {
    const parsed = parseYamlObjects(src.text);
    if (!parsed.ok) {
      invalid.push(`${src.name}: ${parsed.message}`);
      continue;
    }
    for (const [i, o] of parsed.objects.flatMap(expandList).entries()) {
      if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') {
        invalid.push(`${src.name}: object ${i + 1} has no apiVersion and kind`);
        continue;
      }
      const obj = o as unknown as KubeObject;
      rows.push({ file: src.name, object: describe(obj), ...columns(loaded.evaluator.evaluate(obj)) });
    }
  }
  const failed = rows.some((r) => r.result === 'fail' || r.result === 'error');
  const exitCode: ExitCode = invalid.length > 0 ? 2 : failed ? 1 : 0;
  if (opts.output === 'json') {
    return { lines: [JSON.stringify({ results: rows, invalid }, null, 2)], errors: [], exitCode };
  }
  return {
    lines: table([
      ['OBJECT', 'RESULT', 'RULE', 'MESSAGE'],
      ...rows.map((r) => [r.object, r.result, r.rule, r.message]),
    ]),
    errors: invalid.map((m) => `error: ${m}`),
    exitCode,
  };
}

/** `--expect DIR`: scores every labelled fixture of a loaded directory. */
export function rulesScore(
  rules: readonly RulesSource[],
  corpus: Corpus,
  opts: RulesEvalOptions = {},
): RulesEvalOutput {
  const loaded = loadEvaluator(rules);
  if (!loaded.ok) return invalidRules(loaded.errors, opts);
  const scored = score(loaded.evaluator, corpus.cases);
  const s = summarize(scored);
  const rows = agreement(scored, (x) => x.c.group);
  const disagreements = scored
    .filter((x) => (x.expect === 'pass' || x.expect === 'fail') && !x.agrees)
    .map((x) => ({ id: x.c.id, expected: x.c.expected, ...columns(x.result) }));
  const errorsSeen = scored.filter((x) => x.verdict === 'error').length;
  const exitCode: ExitCode =
    corpus.skipped.length > 0 ? 2 : disagreements.length > 0 || errorsSeen > 0 ? 1 : 0;
  if (opts.output === 'json') {
    return {
      lines: [JSON.stringify({ summary: s, groups: rows, disagreements, skipped: corpus.skipped }, null, 2)],
      errors: [],
      exitCode,
    };
  }
  const pct = (a: number, n: number) => (n === 0 ? '–' : `${((100 * a) / n).toFixed(1)} %`);
  return {
    lines: [
      formatAgreementTable(rows, 'group'),
      '',
      `agreement: ${s.agree} of ${s.scored} scored fixtures (${pct(s.agree, s.scored)})`,
      `failures caught: ${s.failuresCaught} of ${s.failures} (${pct(s.failuresCaught, s.failures)})`,
      `healthy fixtures failed: ${s.healthyFailed}; evaluation errors: ${s.errors}; suspended → pass/fail: ${s.suspended.pass}/${s.suspended.fail}`,
      ...(disagreements.length > 0 ? ['', 'disagreements:'] : []),
      ...disagreements.map(
        (d) =>
          `  ${d.id}: expected ${d.expected}, got ${d.result} (${d.rule})${d.message ? `: ${d.message}` : ''}`,
      ),
    ],
    errors: corpus.skipped.map((x) => `error: ${x.id}: ${x.reason}`),
    exitCode,
  };
}

export interface ScoreSummary {
  readonly agree: number;
  readonly scored: number;
  /** Fixtures labelled Progressing or Degraded, and how many of them the rules fail. */
  readonly failures: number;
  readonly failuresCaught: number;
  readonly healthyFailed: number;
  readonly errors: number;
  readonly suspended: { readonly pass: number; readonly fail: number };
}

export function summarize(scored: readonly Scored[]): ScoreSummary {
  const count = (f: (x: Scored) => boolean) => scored.filter(f).length;
  return {
    agree: count((x) => (x.expect === 'pass' || x.expect === 'fail') && x.agrees),
    scored: count((x) => x.expect === 'pass' || x.expect === 'fail'),
    failures: count((x) => x.expect === 'fail'),
    failuresCaught: count((x) => x.expect === 'fail' && x.verdict === 'fail'),
    healthyFailed: count((x) => x.expect === 'pass' && x.verdict !== 'pass'),
    errors: count((x) => x.verdict === 'error'),
    suspended: {
      pass: count((x) => x.expect === 'suspended' && x.verdict === 'pass'),
      fail: count((x) => x.expect === 'suspended' && x.verdict === 'fail'),
    },
  };
}

function invalidRules(errors: readonly string[], opts: RulesEvalOptions): RulesEvalOutput {
  if (opts.output === 'json')
    return { lines: [JSON.stringify({ invalid: errors }, null, 2)], errors: [], exitCode: 2 };
  return { lines: [], errors: errors.map((m) => `error: ${m}`), exitCode: 2 };
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

function columns(r: RuleResult): Pick<Row, 'result' | 'rule' | 'message'> {
  switch (r.kind) {
    case 'pass':
      return {
        result: 'pass',
        rule: r.rules.join(','),
        message: r.fallback === true ? 'no rule for this kind; passes the generic status checks' : '',
      };
    case 'fail':
      return { result: 'fail', rule: r.rule, message: r.message };
    case 'error':
      return { result: 'error', rule: r.rule, message: r.message };
    case 'noRule':
      return { result: 'no rule', rule: '-', message: 'no rule matches: healthy once it exists' };
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
